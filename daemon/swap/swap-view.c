/* SPDX-License-Identifier: Apache-2.0 */
#include <stddef.h>
#include <string.h>

#include "swap/swap-view.h"

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

SwapMode swap_mode_from_string(const char *s) {        for (int i = 0; s && i < _SWAP_MODE_MAX; i++)
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

const char *unload_at_to_string(UnloadAt u) {
        return name_of(unload_at_names, _UNLOAD_AT_MAX, u);
}

UnloadAt unload_at_from_string(const char *s) {
        return index_of(unload_at_names, _UNLOAD_AT_MAX, s);
}
