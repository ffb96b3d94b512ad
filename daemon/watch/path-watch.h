/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Watches one path that may not exist yet (the ready file, CRI-O's
 * overlay-containers/, a container's userdata/config.json) with inotify on
 * its nearest existing ancestor directory, descending as directories appear
 * and climbing back when they go. Creates nothing: the daemon must not make
 * directories on the host that other software owns.
 *
 * The handler runs after every inotify event that may concern the path
 * (created, removed, renamed, closed after writing), with whether it exists
 * now; callers compare with what they knew. */

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "util/macro.h"

typedef struct PathWatch PathWatch;
typedef void (*PathWatchHandler)(PathWatch *w, bool exists, void *userdata);

/* `path` is absolute and already through host_path(). `description` names
 * the event source (sd_event_source_set_description). */
int path_watch_new(sd_event *e, const char *path, const char *description, PathWatchHandler handler,
                   void *userdata, PathWatch **ret);
PathWatch *path_watch_free(PathWatch *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(PathWatch *, path_watch_free);
bool path_watch_exists(const PathWatch *w);
const char *path_watch_path(const PathWatch *w);
/* The directory currently watched (for tests and debug logs). */
const char *path_watch_watched_dir(const PathWatch *w);
