/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The swap seen from outside the core, read-only: the state's name, the
 * moment of the unload and the mode, as the state file, the metrics, the
 * status document and the configuration say them. The rooms that publish
 * (publish/) include this header and nothing else of swap/; the table
 * that moves between the states is swap-state.h's. */

#include <errno.h>

typedef enum SwapState {
        SWAP_STATE_IDLE,                     /* no driver container: nothing to do */
        SWAP_STATE_CONTAINER_SEEN,           /* mofed container running, in-tree stack still loaded */
        SWAP_STATE_BLOCKED,                  /* wanted to unload, a namespace is in use */
        SWAP_STATE_UNLOADED_WAITING_DRIVER,  /* in-tree stack gone, waiting for the ready file */
        SWAP_STATE_LOADING,                  /* loading NVIDIA's build from the container */
        SWAP_STATE_SWAPPED,                  /* NVIDIA's (or another out-of-tree) build is loaded */
        SWAP_STATE_RESTORING,                /* putting the in-tree stack back */
        SWAP_STATE_RESTORED,                 /* in-tree stack back after an abandoned swap */
        SWAP_STATE_FAILED,                   /* gave up; see the journal */
        /* The driver container's whole life: */
        SWAP_STATE_REPAIRING,                /* putting the in-tree stack back while a driver
                                                container is still expected (then container-seen) */
        SWAP_STATE_NO_BUILD,                 /* the container has (or will have) no NVMe build:
                                                not a swap, in-tree stack kept */
        /* Mode=observe: reached only through the rehearsals'
         * outcomes (node-ops-observe.c), never in enforce. */
        SWAP_STATE_WOULD_UNLOAD,             /* the unload would have gone ahead; nothing
                                                touched, in-tree stack still loaded; the load
                                                is rehearsed at the ready file */
        SWAP_STATE_WOULD_SWAP,               /* the load from the container's tree would have
                                                gone ahead; in-tree stack still loaded */
        _SWAP_STATE_MAX,
        _SWAP_STATE_INVALID = -EINVAL,
} SwapState;

typedef enum UnloadAt {
        UNLOAD_AT_CONTAINER_START,   /* while the container compiles */
        UNLOAD_AT_DRIVER_READY,      /* keep the drives up until the ready file */
        UNLOAD_AT_AUTO,              /* (default) one of the two per swap (swap-moment.c); never in a
                                        SwapContext */
        _UNLOAD_AT_MAX,
        _UNLOAD_AT_INVALID = -EINVAL,
} UnloadAt;

/* Mode=, a config key kept in the state
 * file and the status document: enforce swaps; observe follows the driver container the
 * same way, runs every check at the moments it would act and reports what it
 * would do, changing nothing (node/node-ops-observe.c). */
typedef enum SwapMode {
        SWAP_MODE_ENFORCE,
        SWAP_MODE_OBSERVE,
        _SWAP_MODE_MAX,
        _SWAP_MODE_INVALID = -EINVAL,
} SwapMode;

const char *swap_mode_to_string(SwapMode m);
SwapMode swap_mode_from_string(const char *s);
const char *swap_state_to_string(SwapState s);
SwapState swap_state_from_string(const char *s);
/* What the state means, in one line (for the documentation). */
const char *swap_state_meaning(SwapState s);
const char *unload_at_to_string(UnloadAt u);
UnloadAt unload_at_from_string(const char *s);
