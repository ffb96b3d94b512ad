/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Processes holding an NVMe block device open, from /proc/<pid>/fd/<n>: an fd
 * whose target is a block device with the device's devno (stat of the fd),
 * or whose link text is /dev/<name>. The command comes from
 * /proc/<pid>/comm. Our own process is skipped. Processes we may not look
 * into (or a /proc we cannot list) leave every namespace unchecked: one
 * USAGE_UNCHECKED per namespace naming them (fail closed). One walk over
 * pids x fds. */

#include <stdbool.h>
#include <sys/types.h>

#include "usage/usage-scan.h"

/* Pure: the NVMe device an fd refers to, from its link text and, when the
 * fd's target is a block device, its st_rdev (has_rdev). NULL when none. */
const NvmeBlockDevice *process_fd_match(const UsageScan *s, const char *link, bool has_rdev, dev_t rdev);

/* Walks host_path("/proc"). 0 or -ENOMEM (unreadable bits are blockers). */
int process_users_read(UsageScan *s);
