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

#include "host/private-path.h"
#include "util/macro.h"

typedef struct PathWatch PathWatch;
typedef void (*PathWatchHandler)(PathWatch *w, bool exists, void *userdata);

/* `path` is absolute and already through host_path(). `description` names
 * the event source (sd_event_source_set_description). */
int path_watch_new(sd_event *e, const char *path, const char *description, PathWatchHandler handler,
                   void *userdata, PathWatch **ret);
/* The same for one of the root-only paths of host/private-path.h (CRI-O's
 * store directory, a runtime's exec fifo), named by its kind and id, never
 * by a path: each look and each watch goes through private_path_look() and
 * private_path_watch() (the daemon's privileged reader, which adds the
 * watch on this watch's own inotify fd). A look that cannot be made (the
 * reader gone) changes nothing known and is retried every second: the
 * handler never hears "gone" for "cannot tell" (at creation, such a path
 * reads as not there, and the retry runs). containers_dir: the store's
 * overlay-containers/ (through host_path()), NULL for a fifo; id NULL for
 * the store itself. */
int path_watch_new_private(sd_event *e, const char *containers_dir, PrivatePath p, const char *id,
                           const char *description, PathWatchHandler handler, void *userdata, PathWatch **ret);
PathWatch *path_watch_free(PathWatch *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(PathWatch *, path_watch_free);
bool path_watch_exists(const PathWatch *w);
const char *path_watch_path(const PathWatch *w);
/* The directory currently watched (for tests and debug logs). */
const char *path_watch_watched_dir(const PathWatch *w);
