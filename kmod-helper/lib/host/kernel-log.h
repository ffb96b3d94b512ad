/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the kernel logged while we made one call: /dev/kmsg (through
 * host-root), opened before the call and positioned at its end, then read
 * for the records that arrived meanwhile. The kernel says why a fabrics
 * connect failed only there ("nvme nvme3: failed to connect socket: -111",
 * "nvme_fabrics: unknown parameter or missing value 'tls' in ctrl creation
 * request"); write(2) to /dev/nvme-fabrics returns a bare errno.
 * Best effort: reading /dev/kmsg needs CAP_SYSLOG where dmesg_restrict is
 * set, and other messages may interleave. */

/* An fd at the end of the kernel log, or -errno (callers go on without). */
int kernel_log_open_tail(void);

/* The new records whose text contains match, joined with "; " (at most the
 * last 3), without the record headers; *ret NULL when there are none.
 * 0 or -ENOMEM. The fd is read until it has nothing more (O_NONBLOCK). */
int kernel_log_read_new(int fd, const char *match, char **ret);

/* Pure: the message text of one /dev/kmsg record
 * ("6,1234,5678901,-;text\n continuation...") -> "text" (malloc'd; NULL for
 * a record without ';'). */
char *kernel_log_record_text(const char *record);
