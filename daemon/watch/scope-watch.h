/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* CRI-O (systemd cgroup manager) runs each container in a unit
 * crio-<64 hex>.scope, created with the container and removed when its
 * processes are gone. We subscribe to systemd's Manager signals on the
 * system bus (UnitNew/UnitRemoved) and list the existing scopes at start.
 * Without a system bus (fake roots, containers) the caller logs once and
 * relies on the pidfile and the store.
 *
 * A UnitRemoved is a hint, not an exit: systemd sends one for every unit on
 * `systemctl daemon-reload` (ignored here between its Reloading(true) and
 * Reloading(false) signals); the handler confirms an exit through the pidfd
 * of the container's process before acting on it. */

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "util/macro.h"

typedef struct ScopeWatch ScopeWatch;
typedef void (*ScopeWatchHandler)(ScopeWatch *w, const char *container_id, bool added, void *userdata);

int scope_watch_new(sd_event *e, ScopeWatchHandler handler, void *userdata, ScopeWatch **ret);
ScopeWatch *scope_watch_free(ScopeWatch *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(ScopeWatch *, scope_watch_free);
