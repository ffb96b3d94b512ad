/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The fabrics record: the connections an unload is about to drop, kept on
 * disk between the unload and the reconnect, so that a crash or a restart
 * of whoever unloaded (the CLI or the daemon) still knows them.
 *
 * One owner: whoever unloads saves it, before the first removal; whoever
 * loads or restores reconnects from it (fabrics-reconnect.h) and removes it
 * once every recorded connection is back.
 *
 *   /run/nvme-swapguard/fabrics.json          the topology, JSON (json-c), no secret;
 *                                             written atomically (temp, fsync, rename)
 *   /run/nvme-swapguard/fabrics-secrets.json  only when some controller has a
 *                                             DH-HMAC-CHAP secret: mode 0600, created
 *                                             O_CREAT|O_EXCL + fchmod, the values read
 *                                             from sysfs at save time; read back only
 *                                             to pass to the kernel
 * Both through host-root. TLS connections keep no key here: the reconnect
 * passes "tls" and the kernel's keyring supplies the key. */

#include <stdbool.h>

#include "nvme/fabrics-topology.h"
#include "util/macro.h"

#define FABRICS_RECORD_PATH "/run/nvme-swapguard/fabrics.json"
#define FABRICS_SECRETS_PATH "/run/nvme-swapguard/fabrics-secrets.json"
#define FABRICS_RECORD_VERSION 1

/* Writes the record of t (an empty topology removes any record instead:
 * nothing to reconnect). The secrets of the controllers that have any are
 * read from /sys/class/nvme/<name>/dhchap_{secret,ctrl_secret} now and
 * written to the secrets file (a previous one replaced). The directory is
 * created (0755) when missing. 0 or -errno; on failure no new secrets file
 * is left behind. */
int fabrics_record_save(const FabricsTopology *t);

/* Reads the record: 0 with *ret, -ENOENT when there is none (no error
 * text), or -errno with *ret_error (may be NULL) a malloc'd line naming the
 * file and the field for bad input ("/run/nvme-swapguard/fabrics.json:
 * controllers[0].traddr: not a string"). -EBADMSG for bad input. */
int fabrics_record_load(FabricsTopology **ret, char **ret_error);

/* The same for a text already read (the fuzzer's entry point); path names
 * the file in the error. Pure. */
int fabrics_record_parse(const char *text, const char *path, FabricsTopology **ret, char **ret_error);

/* The record's JSON object (the same one `--json` and the status document
 * may embed: never a secret). 0 or -ENOMEM. */
struct json_object;
int fabrics_topology_to_json(const FabricsTopology *t, struct json_object **ret);
/* One controller's object (an element of the above). 0 or -ENOMEM. */
int fabrics_controller_to_json(const FabricsController *c, struct json_object **ret);

/* Whether a record is pending (the file exists): 1, 0 or -errno. */
int fabrics_record_exists(void);

/* Removes the record and the secrets file; absent ones are fine. 0 or -errno. */
int fabrics_record_remove(void);

/* The DH-HMAC-CHAP secrets kept for one recorded connection, read back from
 * the secrets file only to pass to the kernel: *ret_host and *ret_ctrl
 * malloc'd (NULL when that one is not kept), erased and freed with
 * fabrics_secret_free(). 0, -ENOENT (no secrets file or no entry for c),
 * -EBADMSG, -errno. The caller never logs them. */
int fabrics_secrets_load(const FabricsController *c, char **ret_host, char **ret_ctrl);
/* Overwrites a secret with zeros, then frees it; accepts NULL. */
void fabrics_secret_free(char *secret);
static inline void fabrics_secret_freep(char **s) {
        fabrics_secret_free(*s);
}
#define _cleanup_secret_ _cleanup_(fabrics_secret_freep)
