/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Removing one module of the NVMe stack, guarded: right before every
 * attempt (the first, each retry after EAGAIN/EBUSY, each rollback step)
 * the caller's check runs, so that a mount that appeared during a back-off
 * stops the removal instead of being removed from under. Never forced (a
 * forced removal under a mounted filesystem is exactly the data loss this
 * tool exists to prevent); libkmod adds O_NONBLOCK itself. The bounded
 * retry is util/retry.h's. */

#include <libkmod.h>

typedef enum GuardedCheck {
        GUARDED_CHECK_GO = 0,   /* remove it now */
        GUARDED_CHECK_GONE = 1, /* already gone: nothing to do, counts as removed */
        /* values from 2 up: the caller's own reasons to stop, returned as is */
} GuardedCheck;

/* 0 or 1 (GuardedCheck), a caller's stop value (>= 2), or -errno. */
typedef int (*GuardedCheckFn)(void *userdata, const char *module);

/* 0 when the module was removed (or found gone, and /sys/module agrees:
 * ENOENT while it is still listed is a failure, or the last module of a
 * plan would count as gone while loaded; found by tests/faults, row
 * cli:unload:nvme_core:ENOENT); the check's stop value (>= 2); -errno of
 * the last failed attempt or of the check. attempts: tries in all (>= 1). */
int guarded_remove(struct kmod_ctx *ctx, const char *module, unsigned attempts, GuardedCheckFn check,
                   void *userdata);
