/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The DH-HMAC-CHAP secrets of the recorded connections, apart from the
 * record: FABRICS_SECRETS_PATH (fabrics-paths.h; its directory root 0700,
 * which the daemon cannot traverse), mode 0600 from its creation (O_EXCL
 * temp + rename), by identity (the eight fields of
 * fabrics_controller_same_connection(): two host identities to one
 * subsystem keep their own secrets). Written by the capture, read by the
 * connect only to pass to the kernel, entries dropped with their record
 * entries. Never logged, never in --json, result.json or the daemon.
 *   {"version":2,"secrets":[{"transport","traddr","trsvcid","host_traddr",
 *     "host_iface","subsysnqn","hostnqn","hostid","dhchap_secret",
 *     "dhchap_ctrl_secret"}]}
 * Every buffer that held a secret is erased before it is freed, json-c's
 * included (its strings, its serialization, its tokener's buffer). A file
 * left at FABRICS_OLD_SECRETS_PATH by an earlier version is moved here by
 * the first save or load. */

#include "nvme/fabrics-paths.h"
#include "nvme/fabrics-topology.h"
#include "util/macro.h"

/* Writes the secrets of record's entries that have any: read now from
 * /sys/class/nvme/<its name now>/dhchap_{secret,ctrl_secret} when the
 * connection is live in live (by identity), else the value the file held
 * already (an entry not live now: an earlier capture's). No entry with a
 * secret removes the file. 0 or -errno (-EACCES: not allowed to read them). */
int fabrics_secrets_save(const FabricsTopology *record, const FabricsTopology *live);

/* The secrets kept for c (by identity), malloc'd (NULL when that one is not
 * kept), to be freed with fabrics_secret_free(). 0, -ENOENT (no file or no
 * entry for c), -EBADMSG, -errno. The caller never logs them. */
int fabrics_secrets_load(const FabricsController *c, char **ret_host, char **ret_ctrl);

/* Pure: the lookup of fabrics_secrets_load() in the file's text (for it and
 * the fuzzer). Every copy json-c makes while parsing is erased. */
int fabrics_secrets_parse(const char *text, const FabricsController *c, char **ret_host, char **ret_ctrl);

/* Removes the file (and one left at FABRICS_OLD_SECRETS_PATH); an absent
 * one is fine. 0 or -errno. */
int fabrics_secrets_remove(void);

/* Overwrites a secret with zeros, then frees it; accepts NULL. */
void fabrics_secret_free(char *secret);
static inline void fabrics_secret_freep(char **s) {
        fabrics_secret_free(*s);
}
#define _cleanup_secret_ _cleanup_(fabrics_secret_freep)
