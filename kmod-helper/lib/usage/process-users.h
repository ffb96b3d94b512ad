/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Processes holding an NVMe block device open, from /proc/<pid>/fd/<n>
 * (process-fds.h walks them): an fd whose target is a block device with the
 * device's devno, or whose link text is /dev/<name>. The command comes from
 * /proc/<pid>/comm. Our own process is skipped. Processes we may not look
 * into (or a /proc we cannot list, or a walk that did not answer) leave
 * every namespace unchecked: one USAGE_UNCHECKED per namespace naming them
 * (fail closed). */

#include <stdbool.h>
#include <sys/types.h>

#include "usage/process-fds.h"
#include "usage/usage-scan.h"

/* Pure: the NVMe device an fd refers to, from its link text and, when the
 * fd's target is a block device, its st_rdev (has_rdev). NULL when none. */
const NvmeBlockDevice *process_fd_match(const UsageScan *s, const char *link, bool has_rdev, dev_t rdev);

/* Who walks /proc/<pid>/fd: by default this process (process_fd_walk,
 * skipping itself); the daemon sets its privileged reader here, the one
 * process of it that may list other users' fd directories. A source fills
 * *ret (which the caller frees) or returns a negative errno, which every
 * namespace's check reads as unknown. NULL restores the default. */
typedef int (*ProcessFdSource)(void *userdata, ProcessFdList *ret);
void process_users_set_source(ProcessFdSource source, void *userdata);

/* 0 or -ENOMEM (unreadable bits are blockers). */
int process_users_read(UsageScan *s);
