/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Which processes hold which /dev nodes open: the walk over /proc/<pid>/fd
 * that the usage check's process source (process-users.h) turns into
 * usages. Apart from it because it is the one read of the usage check that
 * needs CAP_DAC_READ_SEARCH (/proc/<pid>/fd is a 0500 directory owned by the
 * process's user) and CAP_SYS_PTRACE (each entry's readlink and stat): the
 * daemon runs it in its privileged reader (sandbox/privileged-reader.h),
 * the CLI (root) in process.
 *
 * Only facts, no tenant text: a record is a pid, an fd number, the st_rdev
 * of the node it opens when that is a block device, and the name after
 * "/dev/" of its link when that name is an NVMe block device's kernel name
 * (in a fake root the links point at nothing that can be stat'ed). */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* "nvme" + digits + "n" + digits (+ "p" + digits, or a hidden "c" path):
 * at most 31 bytes with its NUL. */
#define PROCESS_FD_NAME_MAX 32
/* Bounds of one walk's answer: a node past them is answered "unknown"
 * (every namespace unchecked), never "free". */
#define PROCESS_FDS_MAX 65536U
#define PROCESS_UNREADABLE_MAX 65536U
/* Linux's PID_MAX_LIMIT. */
#define PROCESS_PID_MAX 4194304

typedef struct ProcessFd {
        pid_t pid;
        int fd;
        bool has_rdev;
        dev_t rdev;                      /* 0 unless has_rdev */
        char name[PROCESS_FD_NAME_MAX]; /* "" when the link names no NVMe block device */
} ProcessFd;

typedef struct ProcessUnreadable {
        pid_t pid;
        int error; /* positive errno */
} ProcessUnreadable;

typedef struct ProcessFdList {
        ProcessFd *fds;
        size_t n_fds;
        ProcessUnreadable *unreadable;
        size_t n_unreadable;
        int list_error; /* positive errno when /proc itself could not be listed */
} ProcessFdList;

/* ^nvme[0-9]+(c[0-9]+)?n[0-9]+(p[0-9]+)?$, shorter than PROCESS_FD_NAME_MAX. */
bool process_fd_name_valid(const char *name);

int process_fd_list_add(ProcessFdList *l, const ProcessFd *f);
int process_fd_list_add_unreadable(ProcessFdList *l, pid_t pid, int error);
void process_fd_list_done(ProcessFdList *l);

/* Walks host_path("/proc"), skipping the n_skip pids in skip (the caller
 * and, in the reader, the daemon it answers). Records every fd whose link
 * is under "/dev/" and that either is a block device (stat, on the real
 * host only: a stat of a file on a hung mount would block, and /dev holds
 * none) or is "/dev/<an NVMe name>". 0 (what could not be read is in the
 * list), -ENOMEM, -E2BIG past the bounds above. */
int process_fd_walk(const pid_t *skip, size_t n_skip, ProcessFdList *ret);
