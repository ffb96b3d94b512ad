/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The node's NVMe over Fabrics connections, as plain data: every controller
 * whose transport is not pcie, with what it takes to connect it again, and
 * its namespaces with the ids that find them again after a reconnect
 * (device names may change).
 *
 * Read from sysfs (fabrics-topology-sysfs.h) through host-root (libnvme 1.3
 * cannot be pointed at a fake sysfs), the attributes of
 * drivers/nvme/host/core.c (6.1) and sysfs.c (6.12):
 *   /sys/class/nvme/nvmeN/transport         tcp, rdma, fc, loop
 *   /sys/class/nvme/nvmeN/address           nvmf_get_address() (fabrics.c):
 *                                            "traddr=..,trsvcid=..,host_traddr=..,host_iface=.."
 *                                            each part only when given; tcp adds ",src_addr=.."
 *                                            (nvme_tcp_get_address), which we ignore
 *   subsysnqn hostnqn hostid state cntlid   one line each
 *   ctrl_loss_tmo                           "off" when max_reconnects is -1, else
 *                                            max_reconnects * reconnect_delay
 *   reconnect_delay kato                    "%d"
 *   fast_io_fail_tmo                        "off" when -1, else "%d"
 *   queue_count                             1 admin + the I/O queues (nr_io_queues + 1)
 *   sqsize                                  0's based: queue_size - 1 (capped by MQES)
 *   dhchap_secret dhchap_ctrl_secret        6.0+, mode 0600, "none" when not set
 *   tls_key                                 6.7-6.11: every tcp controller shows it, empty
 *                                            without TLS; 6.12: only with tls (or concat)
 *   tls_configured_key tls_keyring          6.12: the key asked for ("%08x", its serial) and its
 *                                            keyring (its description)
 *   nr_write_queues nr_poll_queues          shown by no kernel yet; read when present
 *   hdr_digest data_digest                  the same (0/1)
 * and its namespaces: with native multipath (Debian's and RHEL's default)
 * the controller directory holds the hidden path nvme<S>c<C>n<H>, whose head
 * is nvme<S>n<H> (/sys/class/block/nvme<S>n<H>); without, the controller
 * directory holds nvme<C>n<N> itself. Ids from
 * /sys/class/block/<ns>/{nsid,nguid,uuid,eui}
 * (nguid, uuid and eui exist only when the namespace reports them).
 * Never a secret: dhchap_* are read as present or not (fabrics-record.h
 * keeps their values apart). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvme/fabrics-retry.h"
#include "util/macro.h"

/* A connect option the kernel did not show (an older kernel, a transport
 * without it): left out of the reconnect, the kernel's default applies. */
#define FABRICS_OPT_UNSET (-2)
/* ctrl_loss_tmo and fast_io_fail_tmo shown as "off": -1, as the kernel
 * takes it back ("reconnect forever", "never fail fast"). */
#define FABRICS_OPT_OFF (-1)

typedef struct FabricsNamespace {
        char *name;  /* block device at read time: "nvme1n1" (the head with multipath) */
        unsigned nsid;
        char *nguid; /* as the kernel shows them; NULL when it shows none */
        char *uuid;
        char *eui;   /* EUI-64 */
} FabricsNamespace;

/* What the record keeps about a connection beyond what the kernel showed. */
typedef enum FabricsEntryState {
        FABRICS_ENTRY_PENDING, /* to be connected (again) */
        FABRICS_ENTRY_LOST,    /* given up: ctrl_loss_tmo passed since it was lost */
        _FABRICS_ENTRY_STATE_MAX,
        _FABRICS_ENTRY_STATE_INVALID = -EINVAL,
} FabricsEntryState;

typedef struct FabricsEntryStatus {
        FabricsEntryState state;
        uint64_t captured_at;   /* CLOCK_REALTIME usec */
        uint64_t lost_at;       /* usec: when a connect first found it not live; 0 until then */
        uint64_t next_try_at;   /* usec: after a failed try, no connect before this (a request
                                   does not bring it forward); 0: any time */
        unsigned attempts;
        FabricsErrorKind last_error_kind;
        int last_errno;         /* positive */
} FabricsEntryStatus;

/* "pending", "lost"; and back (_FABRICS_ENTRY_STATE_INVALID for others). */
const char *fabrics_entry_state_to_string(FabricsEntryState s);
FabricsEntryState fabrics_entry_state_from_string(const char *s);

typedef struct FabricsController {
        char *name;        /* at read time: "nvme1" */
        char *transport;   /* "tcp", "rdma", "fc", "loop"; never NULL */
        char *traddr;      /* from `address`; NULL when not given (loop) */
        char *trsvcid;
        char *host_traddr;
        char *host_iface;
        char *subsysnqn;   /* never NULL */
        char *hostnqn;     /* NULL when not shown */
        char *hostid;
        char *state;       /* "live", "connecting", "resetting", "deleting", ... */
        /* Connect options as the kernel shows them: FABRICS_OPT_UNSET when it
         * does not, FABRICS_OPT_OFF for "off". */
        int ctrl_loss_tmo;
        int reconnect_delay;
        int fast_io_fail_tmo;
        int kato;          /* keep_alive_tmo */
        int nr_io_queues;  /* queue_count - 1 */
        int queue_size;    /* sqsize + 1 */
        int nr_write_queues;
        int nr_poll_queues;
        bool hdr_digest;
        bool data_digest;
        bool tls;          /* tls_configured_key or a non-empty tls_key: reconnect with "tls" */
        bool tls_unknown;  /* a TLS attribute is there but could not be read: the state is
                              unknown, never taken as off (the reconnect asks for tls) */
        char *tls_keyring; /* 6.12: as shown; NULL when not */
        char *tls_configured_key;
        bool dhchap_secret;      /* present (never the value); also true when the
                                    attribute (0600) cannot be read by us: a secret may
                                    be there, and the record's save then fails with
                                    EACCES rather than lose it */
        bool dhchap_ctrl_secret; /* the same for the controller's secret */
        FabricsNamespace *namespaces; /* sorted by nsid */
        size_t n_namespaces;
        FabricsEntryStatus entry; /* the record's (fabrics-record.h); zero when read from sysfs */
} FabricsController;

typedef struct FabricsTopology {
        FabricsController *controllers; /* sorted by name (natural order) */
        size_t n_controllers;
} FabricsTopology;

FabricsTopology *fabrics_topology_free(FabricsTopology *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(FabricsTopology *, fabrics_topology_free);

/* Builders, for the sysfs reader, the record's loader and tests: each
 * appends one element (FabricsController with every option
 * FABRICS_OPT_UNSET, FabricsNamespace zeroed) and returns it, or NULL on
 * ENOMEM. The caller fills it with malloc'd strings the topology owns. */
FabricsController *fabrics_topology_add_controller(FabricsTopology *t);
FabricsNamespace *fabrics_controller_add_namespace(FabricsController *c);
/* Removes (and frees) the last controller added: one that turned out half gone. */
void fabrics_topology_drop_last(FabricsTopology *t);

/* Adds to into a copy of each controller of from whose connection into
 * does not have yet (fabrics_controller_same_connection()): a pending
 * record and the live connections, before a second unload, so that neither
 * is lost. 0 or -ENOMEM (into may then hold part of from). */
int fabrics_topology_merge(FabricsTopology *into, const FabricsTopology *from);

/* Copies from (strings, namespaces, the entry status) as a new last
 * controller of t. 0 or -ENOMEM (a half copy stays, freed with t). */
int fabrics_topology_add_copy(FabricsTopology *t, const FabricsController *from);
/* Removes (and frees) controller i, keeping the others' order. */
void fabrics_topology_remove(FabricsTopology *t, size_t i);
/* The controller of t that is the same connection as c, or NULL. */
FabricsController *fabrics_topology_find(const FabricsTopology *t, const FabricsController *c);

/* Sorts controllers by name and each one's namespaces by nsid. */
void fabrics_topology_sort(FabricsTopology *t);

/* One line naming a connection, never a secret:
 * "nvme1: tcp 127.0.0.1:4420 nqn.2026-12.test:sub" (rdma alike; an IPv6
 * traddr in brackets; fc "nn-..:pn-.."; loop without an address; a
 * host_traddr/host_iface as " via <it>"). malloc'd; NULL on ENOMEM. */
char *fabrics_controller_describe(const FabricsController *c);

/* The address part alone ("127.0.0.1:4420", "[fe80::1]:4420"), malloc'd; NULL on ENOMEM. */
char *fabrics_controller_address(const FabricsController *c);

/* Whether a and b are the same connection: transport, traddr, trsvcid,
 * host_traddr, host_iface, subsysnqn, hostnqn and hostid equal (NULL
 * equals NULL); never the controller's name, which the kernel reuses. Pure. */
bool fabrics_controller_same_connection(const FabricsController *a, const FabricsController *b);

/* The transport modules the connections need ("nvme_tcp", "nvme_rdma"),
 * each once, sorted, through nvme_transport_module() (nvme-controllers.h);
 * a strv, empty for an empty topology. -EINVAL when a controller's
 * transport has no module we know (*ret untouched), -ENOMEM. */
int fabrics_topology_transport_modules(const FabricsTopology *t, char ***ret);

/* Pure parsers of the attributes above, for the reader and the tests. */
/* "traddr=..,trsvcid=..,host_traddr=..,host_iface=..[,src_addr=..]":
 * the four fields (each NULL when absent) into c. -EINVAL for a part that
 * is not key=value, -ENOMEM. */
int fabrics_parse_address(const char *address, FabricsController *c);
/* "off" -> FABRICS_OPT_OFF, a number >= -1 -> itself. -EINVAL otherwise. */
int fabrics_parse_option(const char *text, int *ret);
