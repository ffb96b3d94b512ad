/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The fabrics record (FABRICS_RECORD_PATH, fabrics-paths.h): the
 * connections an unload dropped or is about to drop, kept between the
 * capture and the connect that brings them back, so that a crash or a
 * restart of whoever asked still knows them. Never a secret (those are in
 * fabrics-secrets.h). Written by the capture and connect passes
 * (actions/fabrics-capture.h, actions/fabrics-reconnect.h) under the lock
 * (fabrics-lock.h); read by anyone.
 *
 *   {"version":2,"connections":[{
 *     "transport","traddr","trsvcid","host_traddr","host_iface","subsysnqn",
 *     "hostnqn","hostid",                 the identity (strings or null)
 *     "old_name","description",           display only, never an identity
 *     "nr_io_queues","nr_write_queues","nr_poll_queues","queue_size",
 *     "keep_alive_tmo","reconnect_delay","ctrl_loss_tmo","fast_io_fail_tmo",
 *                                         a number, "off" (-1) or null (the kernel's default)
 *     "hdr_digest","data_digest","tls","tls_unknown","has_dhchap","has_dhchap_ctrl",  booleans
 *                                         (tls_unknown: a TLS attribute was there but could
 *                                         not be read; never taken as "no TLS")
 *     "tls_keyring","tls_configured_key", strings or null (6.12)
 *     "state",                            "pending" | "lost"
 *     "captured_at","lost_at","next_try_at", CLOCK_REALTIME usec; lost_at 0 until a connect
 *                                         first found it not live; next_try_at 0 until a try
 *                                         failed, then the earliest time of the next one
 *     "attempts","last_error_kind","last_errno",
 *     "namespaces":[{"name","nsid","nguid","uuid","eui"}]}]}
 * A FabricsTopology holds it: each controller's entry (FabricsEntryStatus)
 * is the record's part, its name the old controller name. */

#include "nvme/fabrics-paths.h"
#include "nvme/fabrics-topology.h"

#define FABRICS_RECORD_VERSION 2

/* Writes t as the record, atomically (temp, fsync, rename), mode 0644,
 * creating the directory (0755) when missing; an empty t removes the
 * record instead. 0 or -errno. */
int fabrics_record_save(const FabricsTopology *t);

/* Reads the record: 0 with *ret; -ENOENT when there is none (no error
 * text); -EBADMSG with *ret_error (may be NULL) a malloc'd line naming the
 * file and the field ("/run/nvme-swapguard-fabrics/record.json:
 * connections[0].traddr: not a string"); other -errno with a line too. */
int fabrics_record_load(FabricsTopology **ret, char **ret_error);

/* Keeps a record that does not parse aside, never overwritten: renamed to
 * record.json.corrupt, or .corrupt.1, .2 ... when taken. *ret_path (may be
 * NULL) the new path. 0 or -errno. */
int fabrics_record_set_aside(char **ret_path);

/* Whether there is a record: 1, 0 or -errno. */
int fabrics_record_exists(void);

/* Removes the record (not the secrets); an absent one is fine. 0 or -errno. */
int fabrics_record_remove(void);
