/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The mount tables, watched once for the whole daemon: the guard's
 * re-check while blocked (mount-watch.h) and the pin's always-on usage
 * watch (usage-watch.h) subscribe here instead of each opening its own.
 *
 * The host's table (PID 1's mount namespace, also from our private one) is
 * one open /proc/1/mountinfo: the kernel signals POLLPRI on it when the
 * table changes, once per change and open file, so one fd serves every
 * subscriber. A change made while nobody listens is not told later (the
 * kernel's poll as epoll adds the fd again takes it): a subscriber that
 * stops listening reads the table after it listens again. The table is
 * read through that same fd (mount_tables_fingerprint()), by the
 * subscriber that needs its content, once per change it was told of.
 *
 * The other mount namespaces' tables are not opened: an open
 * /proc/<pid>/mountinfo would keep that namespace, and with it the very
 * mount, alive. Their mounts go away with their processes, whose exit the
 * guard's subscriber follows (mount_watch_follow()).
 *
 * The source listens while any subscriber does, so that a subscriber that
 * wants one wake-up a window (the usage watch's coalescing), or none at all
 * (the guard while not blocked), is not woken by a busy node's container
 * mounts meanwhile. */

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "usage/mount-fingerprint.h"
#include "util/macro.h"

typedef struct MountTables MountTables;
typedef struct MountTablesSubscription MountTablesSubscription;
/* Runs in the event loop on a change; it must only note or schedule (it
 * may stop listening, not unsubscribe). */
typedef void (*MountTablesHandler)(MountTables *t, void *userdata);

/* -EPERM when the host's table cannot be polled (a regular file in a fake
 * root), -ENOENT when there is none; the caller does without it. */
int mount_tables_new(sd_event *e, MountTables **ret);
MountTables *mount_tables_ref(MountTables *t);
MountTables *mount_tables_unref(MountTables *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(MountTables *, mount_tables_unref);

/* The loop the tables are watched in, for a subscriber's own sources. */
sd_event *mount_tables_event(MountTables *t);

/* A subscriber, deaf until mount_tables_listen(); it holds a reference on
 * the tables until unsubscribed. 0 or -ENOMEM. */
int mount_tables_subscribe(MountTables *t, MountTablesHandler handler, void *userdata,
                           MountTablesSubscription **ret);
MountTablesSubscription *mount_tables_unsubscribe(MountTablesSubscription *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(MountTablesSubscription *, mount_tables_unsubscribe);
/* Whether this subscriber is told of changes from now on. 0 or -errno. */
int mount_tables_listen(MountTablesSubscription *s, bool listening);

/* Reads the host's table from its start through the watched fd and
 * summarises it (which block devices are mounted). 0 or -errno. */
int mount_tables_fingerprint(MountTables *t, MountFingerprint *ret);
