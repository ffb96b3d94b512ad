/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The DH-HMAC-CHAP secrets of the recorded connections, apart from the
 * record: /run/nvme-swapguard/fabrics-secrets.json, mode 0600 from its
 * creation (O_CREAT|O_EXCL, fchmod), written only when some connection has
 * a secret, read back only to pass to the kernel (fabrics_secrets_load(),
 * fabrics-record.h), removed with the record. Never logged, never in
 * --json, the state file or the status document.
 *   {"version":1,"secrets":[{"transport","traddr","trsvcid","subsysnqn",
 *     "host_traddr","host_iface","dhchap_secret","dhchap_ctrl_secret"}]} */

#include "nvme/fabrics-record.h"

/* Reads the secrets of t's controllers that have any
 * (/sys/class/nvme/<name>/dhchap_{secret,ctrl_secret}, 0600 in sysfs: root
 * or CAP_DAC_READ_SEARCH) and writes them; no controller with a secret
 * removes the file instead. 0 or -errno (-EACCES: not allowed to read them). */
int fabrics_secrets_save(const FabricsTopology *t);

/* Removes the file; an absent one is fine. 0 or -errno. */
int fabrics_secrets_remove(void);
