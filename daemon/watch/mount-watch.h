/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Mount table changes of the host (PID 1's mount namespace): the kernel
 * signals POLLPRI on an open /proc/1/mountinfo when it changes. Used only
 * while blocked, to see a blocking mount go away; disabled otherwise so a
 * busy node's container mounts do not wake us. */

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "util/macro.h"

typedef struct MountWatch MountWatch;
typedef void (*MountWatchHandler)(MountWatch *w, void *userdata);

/* -EPERM when the file cannot be polled (a regular file in a fake root). */
int mount_watch_new(sd_event *e, MountWatchHandler handler, void *userdata, MountWatch **ret);
MountWatch *mount_watch_free(MountWatch *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(MountWatch *, mount_watch_free);
int mount_watch_set_enabled(MountWatch *w, bool enabled);
