/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The daemon's state machine, as a pure function: (state, event, context)
 * -> (next state, action). The manager feeds it events from its watchers and
 * from the results of the guard actions it ran, runs the action it returns
 * and feeds the outcome back. Nothing here touches the system, so a test can
 * walk every state x event pair. */

#include <errno.h>
#include <stdbool.h>

#include "swap/swap-view.h"

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

/* What is true right now, as far as the transition needs to know. */
typedef struct SwapContext {
        UnloadAt unload_at;
        bool load_from_container;    /* LoadFromContainer= */
        bool ready_present;          /* the ready file exists */
        bool stack_loaded;           /* any module of the stack is loaded */
        bool replacement_loaded;     /* nvme is loaded and is not the in-tree build */
        bool stopping;               /* stop-requested came: a restore ends in idle */
        /* The driver container's whole life: */
        bool earlier_build_loaded;   /* the replacement loaded came from an earlier driver
                                        container (or was there before this one started):
                                        this container's openibd restart would trip on it */
        bool container_running;      /* a driver container is followed */
        bool build_ruled_out;        /* this container will give no NVMe build: its environment
                                        rules one out (ENABLE_NFSRDMA) or its tree was found
                                        lacking a stack module. Only with container_running. */
        bool observe;                /* Mode=observe: the guard only rehearses */
        /* The pod's end: */
        bool pod_end_restore;        /* the container whose build is loaded ended (none is
                                        followed now), it asked for
                                        RESTORE_DRIVER_ON_POD_TERMINATION=true and did not
                                        take the build out itself: the daemon, which loaded
                                        it, completes the restore (guarded). Only without
                                        container_running. */
} SwapContext;

typedef struct SwapTransition {
        SwapState next;
        SwapAction action;
} SwapTransition;

SwapTransition swap_state_next(SwapState state, SwapEvent event, const SwapContext *ctx);

/* Whether the in-tree stack has been taken away by us in this state, i.e.
 * the reload block must be in place and a stop must not leave it like that. */
bool swap_state_is_unloaded(SwapState s);
/* Whether the ready deadline runs in this state. */
bool swap_state_waits_for_ready(SwapState s);

const char *swap_event_to_string(SwapEvent e);
const char *swap_action_to_string(SwapAction a);
