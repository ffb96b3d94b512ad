/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The kernel's own answer to "is this block device claimed": an
 * open(O_RDONLY|O_EXCL) fails with EBUSY when a filesystem, swap, a holder
 * or another exclusive opener has it, including mounts in other mount
 * namespaces and lazily unmounted filesystems that no table shows. The open
 * briefly takes a module reference, so it is closed at once. */

#include "usage/usage-scan.h"

typedef enum ExclusiveOpenResult {
        EXCLUSIVE_OPEN_FREE,      /* opened (and closed): nobody claims it */
        EXCLUSIVE_OPEN_CLAIMED,   /* EBUSY */
        EXCLUSIVE_OPEN_GONE,      /* ENOENT, ENXIO: the device went away */
        EXCLUSIVE_OPEN_NOT_BLOCK, /* real host only: /dev/<name> is not a block device */
        EXCLUSIVE_OPEN_FAILED,    /* any other error (EACCES when not root, ...) */
} ExclusiveOpenResult;

/* Tries /dev/<name> under the host root. On the real host a node that is not
 * a block device is skipped (opening a stray file proves nothing); under a
 * test root the /dev entries are plain files and the open is made as is, so
 * that a test shim can answer it. *ret_errno: the positive errno, or 0. */
ExclusiveOpenResult exclusive_open_probe(const char *name, int *ret_errno);

/* Probes every device of every namespace that no other source found in use
 * (a claimed whole disk makes its partitions busy too, and the reverse, so
 * one explained device explains the namespace) and adds USAGE_KERNEL_CLAIM
 * for the busy ones (a partition rather than its whole disk). Any other
 * answer is a USAGE_UNCHECKED blocker ("could not check nvme0n1: ..."),
 * except a device that is gone and that sysfs no longer lists (a note).
 * 0 or -ENOMEM. */
int exclusive_open_check(UsageScan *s);

/* The same with another probe (tests script the kernel's answers with it). */
typedef ExclusiveOpenResult (*ExclusiveOpenProbe)(const char *name, int *ret_errno);
int exclusive_open_check_with(UsageScan *s, ExclusiveOpenProbe probe);
