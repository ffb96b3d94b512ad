/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The swap's words: its states, the events that move it, the actions the
 * table asks for, the moment of the unload (UnloadAt=) and the mode
 * (Mode=), with their names as the state file, the journal, the metrics,
 * the status document and the configuration say them. A leaf: it includes
 * nothing of the daemon's folders, so the configuration (config/), the
 * rooms that tell (publish/) and the core (swap/) all use the same words
 * without depending on each other (tests/ship/house-check.py keeps it so).
 * The table that moves between the states is swap/swap-state.h's. */

#include <errno.h>
#include <stdbool.h>

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

typedef enum SwapEvent {
        SWAP_EVENT_CONTAINER_STARTED,        /* a matching driver container runs */
        SWAP_EVENT_CONTAINER_EXITED,         /* ... and is gone */
        SWAP_EVENT_READY_APPEARED,           /* the ready file exists */
        SWAP_EVENT_READY_TIMEOUT,            /* ReadyTimeoutSec passed without it */
        SWAP_EVENT_USAGE_CHANGED,            /* mount table or block devices changed */
        SWAP_EVENT_MODULE_ADDED_IN_TREE,     /* an in-tree stack module appeared */
        SWAP_EVENT_MODULE_ADDED_OTHER,       /* an out-of-tree/NVIDIA stack module appeared */
        SWAP_EVENT_STACK_GONE,               /* no stack module is loaded any more */
        SWAP_EVENT_UNLOAD_DONE,              /* results of the guard actions: */
        SWAP_EVENT_UNLOAD_REFUSED,           /*   in use or plan blocked, nothing touched */
        SWAP_EVENT_UNLOAD_FAILED,            /*   failed, the library put everything back */
        SWAP_EVENT_UNLOAD_FAILED_UNRESTORED, /*   failed and could not put it back */
        SWAP_EVENT_LOAD_DONE,
        SWAP_EVENT_LOAD_FAILED,
        SWAP_EVENT_RESTORE_DONE,
        SWAP_EVENT_RESTORE_FAILED,
        SWAP_EVENT_STOP_REQUESTED,           /* SIGTERM/SIGINT: the daemon is about to exit */
        /* The driver container's whole life, in their own block: */
        SWAP_EVENT_STACK_BROKEN,             /* the loaded stack stays incomplete or mixed:
                                                nvme_core without nvme, a transport without
                                                its core, builds of two origins */
        SWAP_EVENT_LOAD_NO_BUILD,            /* result of a load: the container's tree has no
                                                build of a stack module, nothing was loaded */
        SWAP_EVENT_READY_STALE,              /* a ready file that predates the container */
        /* Mode=observe: results of the rehearsed actions. */
        SWAP_EVENT_UNLOAD_WOULD,             /* the unload would have removed the stack */
        SWAP_EVENT_LOAD_WOULD,               /* the load would have loaded the container's build */
        /* The pod's end: */
        SWAP_EVENT_POD_ENDED,                /* the bounded wait after the followed container's
                                                exit is over (its own cleanup had its chance) */
        _SWAP_EVENT_MAX,
        _SWAP_EVENT_INVALID = -EINVAL,
} SwapEvent;

typedef enum SwapAction {
        SWAP_ACTION_NONE,
        SWAP_ACTION_UNLOAD,          /* unload the in-tree stack (the guard refuses if in use) */
        SWAP_ACTION_RECHECK_USAGE,   /* blocked: see whether the blockers cleared */
        SWAP_ACTION_LOAD,            /* load the build from the container's module tree */
        SWAP_ACTION_RESTORE,         /* load the in-tree stack from the host tree */
        SWAP_ACTION_REPORT_RELOAD,   /* report that the in-tree stack came back by itself */
        SWAP_ACTION_REPORT_STALE_READY, /* report the ignored ready file; nothing changes */
        _SWAP_ACTION_MAX,
        _SWAP_ACTION_INVALID = -EINVAL,
} SwapAction;

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
/* What a state means to the rest of the daemon: outside the core (the
 * table, the plan, the reconcile, the status line) and this file, code asks
 * these, never names a state (the house check: --only-names SWAP_STATE_). */
SwapState swap_state_initial(void);             /* before anything is known: idle */
bool swap_state_build_loaded(SwapState s);      /* swapped: the out-of-tree build is in */
bool swap_state_waits_for_usage(SwapState s);   /* blocked: a namespace in use holds the unload */
bool swap_state_driver_settled(SwapState s);    /* swapped or restored: a driver is in, namespaces
                                                   may still come back */
bool swap_state_of_a_restore(SwapState s);      /* restoring or restored */
bool swap_state_gave_up(SwapState s);           /* failed */
bool swap_state_driver_to_come(SwapState s);    /* unloaded, loading or restoring: a load or a
                                                   restore of ours brings the driver back */
const char *unload_at_to_string(UnloadAt u);
UnloadAt unload_at_from_string(const char *s);
const char *swap_event_to_string(SwapEvent e);
const char *swap_action_to_string(SwapAction a);
