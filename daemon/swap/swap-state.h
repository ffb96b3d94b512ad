/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The daemon's state machine, as a pure function: (state, event, context)
 * -> (next state, action). The manager feeds it events from its watchers and
 * from the results of the guard actions it ran, runs the action it returns
 * and feeds the outcome back. Nothing here touches the system, so a test can
 * walk every state x event pair. */

#include <stdbool.h>

#include "vocabulary/swap-vocabulary.h"

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

