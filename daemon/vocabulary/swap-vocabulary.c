/* SPDX-License-Identifier: Apache-2.0 */
#include <stddef.h>
#include <string.h>

#include "vocabulary/swap-vocabulary.h"

static const char *const state_names[_SWAP_STATE_MAX] = {
        [SWAP_STATE_IDLE] = "idle",
        [SWAP_STATE_CONTAINER_SEEN] = "container-seen",
        [SWAP_STATE_BLOCKED] = "blocked",
        [SWAP_STATE_UNLOADED_WAITING_DRIVER] = "unloaded-waiting-driver",
        [SWAP_STATE_LOADING] = "loading",
        [SWAP_STATE_SWAPPED] = "swapped",
        [SWAP_STATE_RESTORING] = "restoring",
        [SWAP_STATE_RESTORED] = "restored",
        [SWAP_STATE_FAILED] = "failed",
        [SWAP_STATE_REPAIRING] = "repairing",
        [SWAP_STATE_NO_BUILD] = "no-build",
        [SWAP_STATE_WOULD_UNLOAD] = "would-unload",
        [SWAP_STATE_WOULD_SWAP] = "would-swap",
};

/* One line each, the one owner of what a state means: the README's state
 * table, nvme-swapguard(8), the catalog and the plugin are generated from
 * or checked against these (tests/ship/docs-tables.py). */
static const char *const state_meanings[_SWAP_STATE_MAX] = {
        [SWAP_STATE_IDLE] = "no driver container running (or one only created, not started): nothing to do",
        [SWAP_STATE_CONTAINER_SEEN] = "driver container running, in-tree stack still loaded: "
                "just before the unload, or until the ready file when that is the moment",
        [SWAP_STATE_BLOCKED] = "wanted to unload, but a namespace is in use; nothing was touched",
        [SWAP_STATE_UNLOADED_WAITING_DRIVER] = "in-tree stack gone, waiting for the container's ready file",
        [SWAP_STATE_LOADING] = "loading NVIDIA's build from the container's module tree",
        [SWAP_STATE_SWAPPED] = "NVIDIA's (or another out-of-tree) build is loaded",
        [SWAP_STATE_RESTORING] = "putting the in-tree stack back",
        [SWAP_STATE_RESTORED] = "in-tree stack back: the swap was abandoned, or the pod ended "
                "and its build was taken back as RESTORE_DRIVER_ON_POD_TERMINATION=true asks",
        [SWAP_STATE_FAILED] = "the daemon gave up; the journal says why",
        [SWAP_STATE_REPAIRING] = "putting the in-tree stack back while a driver container is still expected",
        [SWAP_STATE_NO_BUILD] = "the driver container has no usable NVMe build: not a swap, in-tree stack kept",
        [SWAP_STATE_WOULD_UNLOAD] = "Mode=observe: the unload would have gone ahead; nothing was unloaded",
        [SWAP_STATE_WOULD_SWAP] = "Mode=observe: the load from the container would have gone ahead too; "
                "in-tree stack still loaded",
};

static const char *const event_names[_SWAP_EVENT_MAX] = {
        [SWAP_EVENT_CONTAINER_STARTED] = "container-started",
        [SWAP_EVENT_CONTAINER_EXITED] = "container-exited",
        [SWAP_EVENT_READY_APPEARED] = "ready-appeared",
        [SWAP_EVENT_READY_TIMEOUT] = "ready-timeout",
        [SWAP_EVENT_USAGE_CHANGED] = "usage-changed",
        [SWAP_EVENT_MODULE_ADDED_IN_TREE] = "module-added-in-tree",
        [SWAP_EVENT_MODULE_ADDED_OTHER] = "module-added-other",
        [SWAP_EVENT_STACK_GONE] = "stack-gone",
        [SWAP_EVENT_UNLOAD_DONE] = "unload-done",
        [SWAP_EVENT_UNLOAD_REFUSED] = "unload-refused",
        [SWAP_EVENT_UNLOAD_FAILED] = "unload-failed",
        [SWAP_EVENT_UNLOAD_FAILED_UNRESTORED] = "unload-failed-unrestored",
        [SWAP_EVENT_LOAD_DONE] = "load-done",
        [SWAP_EVENT_LOAD_FAILED] = "load-failed",
        [SWAP_EVENT_RESTORE_DONE] = "restore-done",
        [SWAP_EVENT_RESTORE_FAILED] = "restore-failed",
        [SWAP_EVENT_STOP_REQUESTED] = "stop-requested",
        [SWAP_EVENT_STACK_BROKEN] = "stack-broken",
        [SWAP_EVENT_LOAD_NO_BUILD] = "load-no-build",
        [SWAP_EVENT_READY_STALE] = "ready-stale",
        [SWAP_EVENT_UNLOAD_WOULD] = "unload-would",
        [SWAP_EVENT_LOAD_WOULD] = "load-would",
        [SWAP_EVENT_POD_ENDED] = "pod-ended",
};

static const char *const action_names[_SWAP_ACTION_MAX] = {
        [SWAP_ACTION_NONE] = "none",
        [SWAP_ACTION_UNLOAD] = "unload",
        [SWAP_ACTION_RECHECK_USAGE] = "recheck-usage",
        [SWAP_ACTION_LOAD] = "load",
        [SWAP_ACTION_RESTORE] = "restore",
        [SWAP_ACTION_REPORT_RELOAD] = "report-reload",
        [SWAP_ACTION_REPORT_STALE_READY] = "report-stale-ready",
};

static const char *const unload_at_names[_UNLOAD_AT_MAX] = {
        [UNLOAD_AT_CONTAINER_START] = "container-start",
        [UNLOAD_AT_DRIVER_READY] = "driver-ready",
        [UNLOAD_AT_AUTO] = "auto",
};

static const char *const mode_names[_SWAP_MODE_MAX] = {
        [SWAP_MODE_ENFORCE] = "enforce",
        [SWAP_MODE_OBSERVE] = "observe",
};

const char *swap_mode_to_string(SwapMode m) {
        return m >= 0 && m < _SWAP_MODE_MAX ? mode_names[m] : NULL;
}

SwapMode swap_mode_from_string(const char *s) {
        for (int i = 0; s && i < _SWAP_MODE_MAX; i++)
                if (strcmp(s, mode_names[i]) == 0)
                        return i;
        return _SWAP_MODE_INVALID;
}

static const char *name_of(const char *const *names, size_t n, int i) {
        return i >= 0 && (size_t) i < n ? names[i] : NULL;
}

static int index_of(const char *const *names, size_t n, const char *s) {
        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (names[i] && strcmp(names[i], s) == 0)
                        return (int) i;
        return -EINVAL;
}

const char *swap_state_to_string(SwapState s) {
        return name_of(state_names, _SWAP_STATE_MAX, s);
}

SwapState swap_state_from_string(const char *s) {
        return index_of(state_names, _SWAP_STATE_MAX, s);
}

const char *swap_state_meaning(SwapState s) {
        return name_of(state_meanings, _SWAP_STATE_MAX, s);
}

SwapState swap_state_initial(void) {
        return SWAP_STATE_IDLE;
}

bool swap_state_build_loaded(SwapState s) {
        return s == SWAP_STATE_SWAPPED;
}

bool swap_state_waits_for_usage(SwapState s) {
        return s == SWAP_STATE_BLOCKED;
}

bool swap_state_driver_settled(SwapState s) {
        return s == SWAP_STATE_SWAPPED || s == SWAP_STATE_RESTORED;
}

bool swap_state_of_a_restore(SwapState s) {
        return s == SWAP_STATE_RESTORING || s == SWAP_STATE_RESTORED;
}

bool swap_state_gave_up(SwapState s) {
        return s == SWAP_STATE_FAILED;
}

bool swap_state_driver_to_come(SwapState s) {
        return s == SWAP_STATE_UNLOADED_WAITING_DRIVER || s == SWAP_STATE_LOADING || s == SWAP_STATE_RESTORING;
}

const char *unload_at_to_string(UnloadAt u) {
        return name_of(unload_at_names, _UNLOAD_AT_MAX, u);
}

UnloadAt unload_at_from_string(const char *s) {
        return index_of(unload_at_names, _UNLOAD_AT_MAX, s);
}

const char *swap_event_to_string(SwapEvent e) {
        return name_of(event_names, _SWAP_EVENT_MAX, e);
}

const char *swap_action_to_string(SwapAction a) {
        return name_of(action_names, _SWAP_ACTION_MAX, a);
}
