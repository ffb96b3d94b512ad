/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Connects again the fabrics connections of a record (fabrics-record.h),
 * through whatever transport modules are loaded now: NVIDIA's after a swap,
 * the in-tree ones after a restore. The caller loads the transports first
 * (fabrics_topology_transport_modules()): the kernel's nvmf_create_ctrl()
 * (drivers/nvme/host/fabrics.c) calls request_module("nvme-<transport>")
 * itself, which must find the module already there, not make modprobe load
 * the host's.
 *
 * For each recorded connection not already live again (matched by
 * fabrics_controller_same_connection() against a fresh
 * fabrics_topology_read()), the option string the kernel's opt_tokens take
 * (fabrics.c; the same names and omissions as libnvme's build_options() /
 * nvmf_add_ctrl(), src/nvme/fabrics.c):
 *   nqn=,transport=,traddr=,trsvcid=,host_traddr=,host_iface=,hostnqn=,hostid=,
 *   nr_io_queues=,queue_size=,keep_alive_tmo=,reconnect_delay=,
 *   ctrl_loss_tmo= (may be -1; not for loop),fast_io_fail_tmo= (not for loop),
 *   [dhchap_secret=,][dhchap_ctrl_secret=,][tls]
 * an option the kernel did not show is left out (its default applies), is
 * written in one write(2) to /dev/nvme-fabrics (through host-root), and
 * "instance=N,cntlid=M" read back from the same descriptor (nvmf_dev_show()).
 * Then, within opts->timeout_sec for the whole call, the new controller's
 * state must read "live" and each recorded namespace must be there again,
 * matched by subsystem NQN + NSID + NGUID/UUID/EUI-64 (the ids the record
 * has), whatever its block name now. */

#include <stdbool.h>
#include <stddef.h>

#include "nvme/fabrics-topology.h"
#include "util/macro.h"

#define FABRICS_RECONNECT_TIMEOUT_SEC_DEFAULT 30u

typedef struct FabricsReconnectOptions {
        unsigned timeout_sec; /* the whole call; 0: FABRICS_RECONNECT_TIMEOUT_SEC_DEFAULT */
} FabricsReconnectOptions;

typedef enum FabricsReconnectOutcome {
        FABRICS_RECONNECTED,         /* connected by us, live, every namespace back */
        FABRICS_ALREADY_LIVE,        /* someone else's connection was live already */
        FABRICS_FAILED,              /* the kernel refused the connect, or it never went live */
        FABRICS_NAMESPACES_MISSING,  /* live, but some recorded namespace is not back */
        _FABRICS_RECONNECT_OUTCOME_MAX,
        _FABRICS_RECONNECT_OUTCOME_INVALID = -EINVAL,
} FabricsReconnectOutcome;

typedef struct FabricsReconnectEntry {
        char *description;   /* fabrics_controller_describe() of the record's entry */
        char *address;       /* fabrics_controller_address() */
        char *old_name;      /* the controller's name in the record ("nvme1") */
        char *new_name;      /* now ("nvme3"); NULL when it did not come back */
        FabricsReconnectOutcome outcome;
        int error;           /* positive errno of the failure (write(2) to
                                /dev/nvme-fabrics, ETIMEDOUT when it never went
                                live, ENOENT for missing namespaces); 0 otherwise */
        char *error_message; /* one line for the operator: the kernel's answer and
                                what it means ("connection refused: nothing listens
                                at 127.0.0.1:4420"); NULL when none */
        char *kernel_message; /* what the kernel logged about a refused connect
                                 ("nvme nvme3: failed to connect socket: -111"), when
                                 it could be read (/dev/kmsg); NULL otherwise */
        char **namespaces;   /* "nvme1n1 (nsid 1)": the ones back, with their names now */
        char **missing;      /* "nsid 2 (nguid ...)": recorded, not back */
} FabricsReconnectEntry;

typedef struct FabricsReconnectResult {
        FabricsReconnectEntry *entries; /* one per recorded connection, in record order */
        size_t n_entries;
} FabricsReconnectResult;

/* 0 with *ret (see each entry's outcome); -errno only when nothing could be
 * tried (no memory; -EPERM under a fake root without the test fake kernel,
 * see host/kernel-target.h). An empty record is an empty result. */
int fabrics_reconnect(const FabricsTopology *record, const FabricsReconnectOptions *opts,
                      FabricsReconnectResult **ret);

/* True when every entry is FABRICS_RECONNECTED or FABRICS_ALREADY_LIVE: the
 * record can then be removed. */
bool fabrics_reconnect_all_back(const FabricsReconnectResult *r);

FabricsReconnectResult *fabrics_reconnect_result_free(FabricsReconnectResult *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(FabricsReconnectResult *, fabrics_reconnect_result_free);

/* "reconnected", "already-live", "failed", "namespaces-missing"; NULL for others. */
const char *fabrics_reconnect_outcome_to_string(FabricsReconnectOutcome o);

/* Pure: the option string for one recorded connection, secrets passed in
 * (NULL: none). malloc'd, with secrets in it when given: the caller erases
 * it (fabrics_secret_free()). 0, -EINVAL (no subsysnqn or transport), -ENOMEM. */
int fabrics_connect_options(const FabricsController *c, const char *host_secret, const char *ctrl_secret,
                            char **ret);

/* Pure: "instance=3,cntlid=1\n" -> 3. -EINVAL when there is no instance. */
int fabrics_parse_connect_reply(const char *reply, unsigned *ret_instance);
