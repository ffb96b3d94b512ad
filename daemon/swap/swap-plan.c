/* SPDX-License-Identifier: Apache-2.0 */
/* What entering a state means (swap-plan.h). */
#include "swap/swap-plan.h"

uint32_t swap_plan_rails(SwapState s, bool observe) {
        uint32_t e = 0;

        /* Observe sets no reload block, nor removes one another instance
         * left. */
        if (!observe)
                e |= swap_state_is_unloaded(s) ? SWAP_EFFECT_RELOAD_BLOCK_SET : SWAP_EFFECT_RELOAD_BLOCK_REMOVE;
        if (s == SWAP_STATE_BLOCKED)
                e |= SWAP_EFFECT_MOUNT_WATCH_ON;
        else
                e |= SWAP_EFFECT_FORGET_BLOCKERS;
        return e;
}

static bool any_of(SwapState s, SwapState a, SwapState b, SwapState c, SwapState d) {
        return s == a || s == b || s == c || s == d;
}

/* What is said and noted on entering next from old (next != old). */
static uint32_t told(SwapState old, SwapState next, const SwapMemory *mem) {
        switch (next) {
        case SWAP_STATE_CONTAINER_SEEN:
                return any_of(old, SWAP_STATE_IDLE, SWAP_STATE_RESTORED, SWAP_STATE_FAILED, SWAP_STATE_SWAPPED)
                               ? SWAP_EFFECT_REPORT_CONTAINER_SEEN : 0;
        case SWAP_STATE_SWAPPED:
                return SWAP_EFFECT_REPORT_SWAPPED;
        case SWAP_STATE_RESTORING:
                return SWAP_EFFECT_NOTE_RESTORE;
        case SWAP_STATE_RESTORED:
                return SWAP_EFFECT_REPORT_RESTORED;
        case SWAP_STATE_FAILED:
                return (mem->stopping && old == SWAP_STATE_RESTORING ? SWAP_EFFECT_REPORT_STOP_FAILED : 0) |
                       (mem->failure_said ? 0 : SWAP_EFFECT_REPORT_GAVE_UP);
        case SWAP_STATE_IDLE:
                return mem->stopping && old == SWAP_STATE_RESTORING ? SWAP_EFFECT_REPORT_STOP_RESTORED
                                                                    : SWAP_EFFECT_FORGET_SWAP;
        default:
                return 0;
        }
}

/* What the metrics count: also for a transition to the same state (an
 * unload tried again from container-seen starts a swap's marks). */
static uint32_t counted(SwapState old, SwapState next, SwapEvent ev, SwapAction action) {
        uint32_t e = 0;

        if (action == SWAP_ACTION_UNLOAD)
                e |= SWAP_EFFECT_METRICS_UNLOAD_STARTED;
        if (ev == SWAP_EVENT_UNLOAD_DONE)
                e |= SWAP_EFFECT_METRICS_DRIVERLESS;
        if (next == SWAP_STATE_BLOCKED && old != SWAP_STATE_BLOCKED)
                e |= SWAP_EFFECT_METRICS_REFUSAL;
        if (next == SWAP_STATE_RESTORED && old != SWAP_STATE_RESTORED)
                e |= SWAP_EFFECT_METRICS_RESTORE;
        /* Loaded by us, or by the driver container itself (older images),
         * over the stack we unloaded: a swap. Not a build found at start. */
        if (next == SWAP_STATE_SWAPPED && (old == SWAP_STATE_LOADING || old == SWAP_STATE_UNLOADED_WAITING_DRIVER))
                e |= SWAP_EFFECT_METRICS_SWAP;
        if (next == SWAP_STATE_SWAPPED || next == SWAP_STATE_RESTORED || next == SWAP_STATE_IDLE)
                e |= SWAP_EFFECT_METRICS_CLEAR;
        return e;
}

/* The pod's end, while the daemon completes an ended pod's restore. */
static uint32_t pod_end(SwapState next) {
        switch (next) {
        case SWAP_STATE_RESTORING:
                return 0; /* the restore's cause: the pod's end (swap_plan()) */
        case SWAP_STATE_RESTORED:
                return SWAP_EFFECT_POD_END_RESTORED;
        case SWAP_STATE_BLOCKED:
                return SWAP_EFFECT_POD_END_BLOCKED;
        case SWAP_STATE_SWAPPED:
                return 0;
        default:
                /* failed (said where it failed), idle (a stop): no longer ours. */
                return SWAP_EFFECT_POD_END_FORGET;
        }
}

/* The driver container's life. */
static uint32_t lifecycle(SwapState old, SwapState next) {
        switch (next) {
        case SWAP_STATE_SWAPPED:
                return SWAP_EFFECT_NOTE_BUILD_CONTAINER | SWAP_EFFECT_REPORT_GDS;
        case SWAP_STATE_RESTORED:
        case SWAP_STATE_NO_BUILD:
        case SWAP_STATE_CONTAINER_SEEN:
        case SWAP_STATE_UNLOADED_WAITING_DRIVER:
        case SWAP_STATE_IDLE:
                return (old == SWAP_STATE_SWAPPED || old == SWAP_STATE_RESTORING || old == SWAP_STATE_REPAIRING ||
                                        next == SWAP_STATE_UNLOADED_WAITING_DRIVER
                                ? SWAP_EFFECT_CHECK_BUILD_GONE : 0) |
                       (next == SWAP_STATE_NO_BUILD ? SWAP_EFFECT_REPORT_NO_BUILD : 0);
        case SWAP_STATE_REPAIRING:
                return SWAP_EFFECT_REPORT_REPAIRING;
        default:
                return 0;
        }
}

SwapPlan swap_plan(SwapState old, SwapEvent ev, const SwapContext *ctx, const SwapMemory *mem) {
        SwapTransition t = swap_state_next(old, ev, ctx);
        SwapPlan p = { .next = t.next, .action = t.action, .restore_cause = _SWAP_EVENT_INVALID };

        if (t.next < 0)
                return p;
        p.effects = swap_plan_rails(t.next, mem->observe);
        if (!mem->observe) /* its rehearsals are no swaps, restores or refusals */
                p.effects |= counted(old, t.next, ev, t.action);
        if (t.next == old)
                return p;
        p.effects |= SWAP_EFFECT_LOG_TRANSITION | told(old, t.next, mem) | lifecycle(old, t.next);
        if (t.next != SWAP_STATE_FAILED)
                p.effects |= SWAP_EFFECT_FORGET_FAILURE;
        /* The driver container loaded its own build after our unload: its
         * transports are there now. After our own load, the load asked. */
        if (t.next == SWAP_STATE_SWAPPED && old != SWAP_STATE_LOADING)
                p.effects |= SWAP_EFFECT_FABRICS_CONNECT;
        p.swapped_by_us = t.next == SWAP_STATE_SWAPPED && old == SWAP_STATE_LOADING;
        if (mem->pod_end_restoring)
                p.effects |= pod_end(t.next);
        /* What sent us to restoring, decided once: the pod's end when the
         * daemon completes an ended pod's restore (the unload's outcome
         * that led here is only its means), else the event. */
        if (t.next == SWAP_STATE_RESTORING)
                p.restore_cause = mem->pod_end_restoring ? SWAP_EVENT_POD_ENDED : ev;
        return p;
}
