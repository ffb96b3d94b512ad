/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the swap does: runs the module actions the state table returns
 * (unload, re-check, load, restore) through NodeOps, and returns what came
 * of each as a value (swap-outcome.h) with the event the manager feeds back
 * to the table. The manager notes and tells the outcome; the actions keep
 * only the guard's own looks (the usage just before each removal, the stack
 * after it) and the save just before the first module call. */

#include "config/daemon-config.h"
#include "swap/swap-fabrics-data.h"
#include "swap/swap-follow.h"
#include "swap/swap-machine.h"
#include "swap/swap-outcome.h"
#include "swap/swap-snapshot.h"

typedef struct PinHolder PinHolder;
typedef struct UsageWatch UsageWatch;

/* The owners an action reads and changes, each by name. */
typedef struct SwapActors {
        /* What goes and which namespaces were there, noted before the
         * unload (the restore puts back what the record names). */
        SwapMachine *swap;
        /* The followed container; the load's checks for a build rule it
         * out when its tree has none. */
        SwapFollow *follow;
        const Config *config;
        /* The step's snapshot (re-read by the guard's looks, forgotten
         * once the node changed), NodeOps, the loop's table (the save). */
        SwapNodeView node;
        /* The connections' capture, asked for and marked stale. */
        SwapFabrics *fabrics;
        /* Taken again after an unload that let go of it. */
        PinHolder *pin;
        UsageWatch *usage;
} SwapActors;

/* Runs a module action (SWAP_ACTION_UNLOAD, _RECHECK_USAGE, _LOAD,
 * _RESTORE); returns the event of its outcome, or _SWAP_EVENT_INVALID for
 * any other action. *ret (zeroed first) is what came of it, for the
 * manager to note and tell; swap_outcome_done() frees it. */
SwapEvent swap_actions_run(const SwapActors *a, SwapAction action, SwapOutcome *ret);
