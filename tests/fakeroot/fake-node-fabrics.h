/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* NVMe over Fabrics controllers (fake-node-fabrics.c); part of fake-node.h.
 * Laid out as Linux 6.1 shows them (drivers/nvme/host/core.c, fabrics.c):
 * sys/devices/virtual/nvme-fabrics/ctl/nvme<N> with transport, address
 * ("traddr=..,trsvcid=..[,host_traddr=..][,host_iface=..]", tcp adds
 * src_addr), subsysnqn, hostnqn, hostid, state, cntlid, ctrl_loss_tmo
 * ("off" for -1), reconnect_delay, fast_io_fail_tmo ("off" for -1), kato,
 * queue_count, sqsize, dhchap_secret / dhchap_ctrl_secret ("none" when not
 * set), tls_key when tls (6.12); its subsystem nvme-subsys<N>; each
 * namespace a multipath head nvme<N>n<nsid> with the hidden path
 * nvme<N>c<N>n<nsid>, both with nsid, nguid and uuid.
 *
 * Each controller added also registers its target under fake-fabrics/
 * (transport, address, subsystem NQN and namespaces), so that the fake
 * kernel's /dev/nvme-fabrics can connect it again after the transport
 * module went away and took the controller with it, as the kernel does. */

#include <stdbool.h>
#include <stddef.h>

typedef struct FakeNode FakeNode;

typedef struct FakeFabricsNamespace {
        unsigned nsid;
        const char *nguid; /* NULL: none shown */
        const char *uuid;
} FakeFabricsNamespace;

typedef struct FakeFabrics {
        const char *transport;   /* "tcp", "rdma", "fc", "loop" */
        const char *traddr, *trsvcid, *host_traddr, *host_iface; /* NULL: not given */
        const char *subsysnqn;
        const char *hostnqn, *hostid;   /* NULL: the fake defaults */
        const char *ctrl_loss_tmo;      /* as shown: "600", "off"; NULL: "600" */
        const char *reconnect_delay;    /* NULL: "10" */
        const char *fast_io_fail_tmo;   /* NULL: "off" */
        const char *kato;               /* NULL: "5" */
        unsigned queue_count;           /* 0: 3 (two I/O queues) */
        unsigned sqsize;                /* 0: 127 */
        const char *dhchap_secret, *dhchap_ctrl_secret; /* NULL: "none" */
        bool tls;
        bool tls_key_empty;             /* an empty tls_key, as 6.7-6.11 show without TLS */
        const char *state;              /* NULL: "live" */
        const FakeFabricsNamespace *namespaces;
        size_t n_namespaces;
} FakeFabrics;

/* Controller nvme<ctrl> connected as f says, its subsystem and namespaces,
 * and the target registered (kept when the controller goes). */
int fake_node_add_fabrics_controller(FakeNode *n, unsigned ctrl, const FakeFabrics *f);

/* A target only (a subsystem one can connect to): transport, traddr,
 * trsvcid, subsysnqn and namespaces of f. */
int fake_node_add_fabrics_target(FakeNode *n, const FakeFabrics *f);

/* What the kernel does for a write of options to /dev/nvme-fabrics:
 * -EINVAL for an option it does not know (6.12's tokens) or a transport
 * whose module is not loaded ("no handler found"), -EALREADY for a
 * connection that exists, -ECONNREFUSED when no registered target matches
 * transport, traddr, trsvcid and nqn; otherwise the controller appears at
 * the lowest free instance with the options as the kernel shows them, and
 * the target's namespaces under it. 0 with *ret_instance. */
int fake_node_fabrics_connect(FakeNode *n, const char *options, unsigned *ret_instance);

/* What removing a transport module does: every controller of that
 * transport ("nvme_tcp" -> tcp) goes, with its namespaces, block devices
 * and subsystem. Other modules: nothing. */
int fake_node_fabrics_module_removed(FakeNode *n, const char *module);
