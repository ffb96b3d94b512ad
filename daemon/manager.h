/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The daemon's manager: owns the configuration, the state machine's current
 * state, the record written to the state file, and every event source
 * (signals, container store, scopes, udev, ready file, mount table, the
 * ready deadline, the pidfd of the driver container). It turns events into
 * swap_state_next() calls, runs the actions through NodeOps and reports.
 * Its data: manager-data.h; its dispatch loop: manager-dispatch.h. */

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "config/daemon-config.h"
#include "node/node-ops.h"
#include "swap/swap-state.h"
#include "watch/udev-watch.h"
#include "util/macro.h"

typedef struct Manager Manager;

typedef struct ManagerOptions {
        const char *config_path;   /* as given (--config) or host_path()'d default */
        bool config_optional;      /* the default path may be missing */
        const NodeOps *ops;
} ManagerOptions;

/* Takes the config. */
int manager_new(const ManagerOptions *opts, Config *config, Manager **ret);
Manager *manager_free(Manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(Manager *, manager_free);
/* Adds every event source, reconciles, sends READY=1. */
int manager_start(Manager *m);
/* Runs the loop until SIGTERM/SIGINT; returns the exit code. */
int manager_run(Manager *m);
SwapState manager_get_state(const Manager *m);
/* One uevent of the udev watch (a module came or went, a block device
 * changed), as the watch hands it over: one wakeup may hand several in a
 * row within the same event of the loop. */
void manager_uevent(Manager *m, UdevWatchEvent ev, const char *name);
