/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The capture pass: before an unload, the node's live fabrics connections
 * go into the record (nvme/fabrics-record.h) and their DH-HMAC-CHAP secrets
 * into the secrets file (nvme/fabrics-secrets.h), under the lock. Merged by
 * identity: a live connection replaces its entry as pending (captured now);
 * entries not live stay as they are (an earlier swap's, still pending or
 * lost). Run by the connect unit (serve-request) for the daemon and by the
 * CLI's unload; one policy for both. */

#include <stdint.h>

#include "actions/fabrics-pass.h"

/* 0 with *ret (exit_code 0, or 1 with its error: the lock, a record set
 * aside, sysfs or the secrets unreadable; then nothing was written), or
 * -ENOMEM. now_usec: CLOCK_REALTIME, the captured_at of the entries.
 * Entries: the live connections, "captured"; and entries kept that are
 * lost, "lost". */
int fabrics_capture_pass(uint64_t now_usec, FabricsPassResult **ret);

/* Removes the record and the secrets under the lock (an operator's
 * `fabrics forget`): the entries removed are reported with their state as
 * outcome ("lost" or "failed" for a pending one). As above. */
int fabrics_forget_pass(FabricsPassResult **ret);
