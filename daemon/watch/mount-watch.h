/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What may end a blocked swap's blockers, for the guard's re-check: a
 * change of the host's mount table (a subscription to the daemon's one
 * mountinfo watch, mount-tables.h). Used only while blocked, to see a
 * blocking mount go away; deaf otherwise so a busy node's container mounts
 * do not wake us.
 *
 * A mount that only another mount namespace holds goes away with that
 * namespace's processes, which the host's table does not show: the watch
 * also follows the exit of the processes the blockers named
 * (pid-exit-watch.h; a device held open by a process too) and calls the
 * same handler. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/macro.h"
#include "watch/mount-tables.h"

typedef struct MountWatch MountWatch;
typedef void (*MountWatchHandler)(MountWatch *w, void *userdata);

/* Deaf until mount_watch_set_enabled(). 0 or -errno. */
int mount_watch_new(MountTables *t, MountWatchHandler handler, void *userdata, MountWatch **ret);
MountWatch *mount_watch_free(MountWatch *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(MountWatch *, mount_watch_free);
int mount_watch_set_enabled(MountWatch *w, bool enabled);

/* The most pids followed (the first blockers; a re-check names the next). */
#define MOUNT_WATCH_PIDS_MAX 16
/* Follows the exit of exactly these pids (n 0: none). 0 or -ENOMEM. */
int mount_watch_follow(MountWatch *w, const pid_t *pids, size_t n);
