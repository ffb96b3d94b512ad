/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The step's plan, as a pure function: (state, event, context, memory) ->
 * (next state, action, every effect of entering it). swap-state.c's table
 * decides where to go and what to run; this file decides what that entry
 * means: the node's guard rails (the reload block, the mount watch), what
 * is said in the journal, what the metrics count, what the record forgets,
 * what the pod's end and the driver container's life note. The manager
 * carries the effects out in one fixed order (manager-dispatch.c), each
 * effect one call, and no hook looks at the state to find out what to do:
 * an entry's meaning is here, in one place, and a test can walk it. */

#include <stdbool.h>
#include <stdint.h>

#include "swap/swap-state.h"

/* What the core remembers that the plan needs, beside the node's context. */
typedef struct SwapMemory {
        bool stopping;          /* a stop was asked for */
        bool observe;           /* Mode=observe: the node is not changed, nothing counted */
        bool pod_end_restoring; /* the daemon is completing an ended pod's restore (pod-end.c) */
        bool failure_said;      /* the reason for failing was said already (by the action) */
} SwapMemory;

typedef enum SwapEffect {
        /* the node's guard rails, from the state entered */
        SWAP_EFFECT_RELOAD_BLOCK_SET        = 1u << 0,  /* the in-tree stack is ours to keep out */
        SWAP_EFFECT_RELOAD_BLOCK_REMOVE     = 1u << 1,
        SWAP_EFFECT_MOUNT_WATCH_ON          = 1u << 2,  /* blocked: a mount's end re-checks */
        SWAP_EFFECT_FORGET_BLOCKERS         = 1u << 3,
        SWAP_EFFECT_FORGET_FAILURE          = 1u << 4,
        /* said */
        SWAP_EFFECT_LOG_TRANSITION          = 1u << 5,
        SWAP_EFFECT_FABRICS_CONNECT         = 1u << 6,  /* the container loaded its own build: its transports */
        SWAP_EFFECT_REPORT_CONTAINER_SEEN   = 1u << 7,
        SWAP_EFFECT_REPORT_SWAPPED          = 1u << 8,  /* by us when the plan's swapped_by_us */
        SWAP_EFFECT_NOTE_RESTORE            = 1u << 9,  /* the restore's cause: the plan's restore_cause */
        SWAP_EFFECT_REPORT_RESTORED         = 1u << 10,
        SWAP_EFFECT_REPORT_STOP_RESTORED    = 1u << 11,
        SWAP_EFFECT_REPORT_STOP_FAILED      = 1u << 12,
        SWAP_EFFECT_REPORT_GAVE_UP          = 1u << 13, /* failed, and no action said why */
        SWAP_EFFECT_FORGET_SWAP             = 1u << 14, /* back to idle */
        /* counted (never in observe) */
        SWAP_EFFECT_METRICS_UNLOAD_STARTED  = 1u << 15,
        SWAP_EFFECT_METRICS_DRIVERLESS      = 1u << 16,
        SWAP_EFFECT_METRICS_REFUSAL         = 1u << 17,
        SWAP_EFFECT_METRICS_RESTORE         = 1u << 18,
        SWAP_EFFECT_METRICS_SWAP            = 1u << 19,
        SWAP_EFFECT_METRICS_CLEAR           = 1u << 20, /* a swap's marks end */
        /* the pod's end */
        SWAP_EFFECT_POD_END_RESTORED        = 1u << 21, /* said, and the pod's end forgotten */
        SWAP_EFFECT_POD_END_BLOCKED         = 1u << 22,
        SWAP_EFFECT_POD_END_FORGET          = 1u << 23,
        /* the driver container's life */
        SWAP_EFFECT_NOTE_BUILD_CONTAINER    = 1u << 24, /* the loaded build is the followed container's */
        SWAP_EFFECT_REPORT_GDS              = 1u << 25,
        SWAP_EFFECT_CHECK_BUILD_GONE        = 1u << 26, /* forget the build's record once none is loaded */
        SWAP_EFFECT_REPORT_NO_BUILD         = 1u << 27,
        SWAP_EFFECT_REPORT_REPAIRING        = 1u << 28,
} SwapEffect;

typedef struct SwapPlan {
        SwapState next;          /* < 0: the event means nothing here, nothing else is planned */
        SwapAction action;
        uint32_t effects;        /* SwapEffect bits */
        SwapEvent restore_cause; /* with SWAP_EFFECT_NOTE_RESTORE */
        bool swapped_by_us;      /* with SWAP_EFFECT_REPORT_SWAPPED: our load, not the container's */
} SwapPlan;

SwapPlan swap_plan(SwapState old, SwapEvent ev, const SwapContext *ctx, const SwapMemory *mem);

/* The guard rails of a state alone (a start resuming in it: the reconcile). */
uint32_t swap_plan_rails(SwapState s, bool observe);

static inline bool swap_plan_has(const SwapPlan *p, SwapEffect e) {
        return (p->effects & (uint32_t) e) != 0;
}
