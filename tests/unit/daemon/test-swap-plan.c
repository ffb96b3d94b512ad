/* SPDX-License-Identifier: Apache-2.0 */
/* The step's plan (swap-plan.h), walked over every state x event x context
 * x memory: what entering a state means is decided once, by the plan, and
 * these properties hold for each transition the table makes. */

#include <criterion/criterion.h>
#include <stdio.h>

#include "swap/swap-plan.h"

#define N_FLAGS 10

static SwapContext context_of(unsigned bits, UnloadAt at) {
        return (SwapContext) {
                .unload_at = at,
                .load_from_container = bits & 1u << 0,
                .ready_present = bits & 1u << 1,
                .stack_loaded = bits & 1u << 2,
                .replacement_loaded = bits & 1u << 3,
                .stopping = bits & 1u << 4,
                .earlier_build_loaded = bits & 1u << 5,
                .container_running = bits & 1u << 6,
                .build_ruled_out = bits & 1u << 7,
                .observe = bits & 1u << 8,
                .pod_end_restore = bits & 1u << 9,
        };
}

typedef void (*Check)(SwapState old, SwapEvent ev, const SwapContext *ctx, const SwapMemory *mem, const SwapPlan *p,
                      unsigned *seen);

/* Every transition of the table, with a memory that agrees with the
 * context (stopping, observe) and both ways for the rest. */
static unsigned walk(Check check) {
        unsigned seen = 0;

        for (SwapState s = 0; s < _SWAP_STATE_MAX; s++)
                for (SwapEvent ev = 0; ev < _SWAP_EVENT_MAX; ev++)
                        for (UnloadAt at = 0; at < _UNLOAD_AT_MAX; at++)
                                for (unsigned bits = 0; bits < 1u << N_FLAGS; bits++)
                                        for (unsigned mb = 0; mb < 4; mb++) {
                                                SwapContext ctx = context_of(bits, at);
                                                SwapMemory mem = { .stopping = ctx.stopping, .observe = ctx.observe,
                                                                   .pod_end_restoring = mb & 1u,
                                                                   .failure_said = mb & 2u };
                                                SwapPlan p = swap_plan(s, ev, &ctx, &mem);

                                                if (p.next >= 0)
                                                        check(s, ev, &ctx, &mem, &p, &seen);
                                        }
        return seen;
}

static void restore_cause_once(SwapState old, SwapEvent ev, const SwapContext *ctx, const SwapMemory *mem,
                               const SwapPlan *p, unsigned *seen) {
        if (p->next != SWAP_STATE_RESTORING || old == SWAP_STATE_RESTORING) {
                cr_assert_not(swap_plan_has(p, SWAP_EFFECT_NOTE_RESTORE));
                return;
        }
        (*seen)++;
        cr_assert(swap_plan_has(p, SWAP_EFFECT_NOTE_RESTORE));
        /* The pod's end is the cause when the daemon completes an ended
         * pod's restore, whatever outcome led there; else the event. */
        cr_assert_eq(p->restore_cause, mem->pod_end_restoring ? SWAP_EVENT_POD_ENDED : ev,
                     "%s on %s (pod's end %d): cause %s", swap_state_to_string(old), swap_event_to_string(ev),
                     mem->pod_end_restoring, swap_event_to_string(p->restore_cause));
}

Test(swap_plan, the_restore_cause_is_decided_once) {
        cr_assert_gt(walk(restore_cause_once), 0, "no transition to restoring was walked");
}

static void same_state_says_nothing(SwapState old, SwapEvent ev, const SwapContext *ctx, const SwapMemory *mem,
                                    const SwapPlan *p, unsigned *seen) {
        const uint32_t entered = SWAP_EFFECT_LOG_TRANSITION | SWAP_EFFECT_FABRICS_CONNECT |
                                 SWAP_EFFECT_REPORT_CONTAINER_SEEN | SWAP_EFFECT_REPORT_SWAPPED |
                                 SWAP_EFFECT_NOTE_RESTORE | SWAP_EFFECT_REPORT_RESTORED |
                                 SWAP_EFFECT_REPORT_STOP_RESTORED | SWAP_EFFECT_REPORT_STOP_FAILED |
                                 SWAP_EFFECT_REPORT_GAVE_UP | SWAP_EFFECT_FORGET_SWAP | SWAP_EFFECT_FORGET_FAILURE |
                                 SWAP_EFFECT_POD_END_RESTORED | SWAP_EFFECT_POD_END_BLOCKED |
                                 SWAP_EFFECT_POD_END_FORGET | SWAP_EFFECT_NOTE_BUILD_CONTAINER |
                                 SWAP_EFFECT_REPORT_GDS | SWAP_EFFECT_CHECK_BUILD_GONE |
                                 SWAP_EFFECT_REPORT_NO_BUILD | SWAP_EFFECT_REPORT_REPAIRING;

        if (p->next != old) {
                cr_assert(swap_plan_has(p, SWAP_EFFECT_LOG_TRANSITION));
                return;
        }
        (*seen)++;
        cr_assert_eq(p->effects & entered, 0, "%s on %s stays, yet plans 0x%x", swap_state_to_string(old),
                     swap_event_to_string(ev), p->effects & entered);
}

Test(swap_plan, staying_in_a_state_enters_nothing) {
        cr_assert_gt(walk(same_state_says_nothing), 0);
}

static void rails_always(SwapState old, SwapEvent ev, const SwapContext *ctx, const SwapMemory *mem,
                         const SwapPlan *p, unsigned *seen) {
        const uint32_t metrics = SWAP_EFFECT_METRICS_UNLOAD_STARTED | SWAP_EFFECT_METRICS_DRIVERLESS |
                                 SWAP_EFFECT_METRICS_REFUSAL | SWAP_EFFECT_METRICS_RESTORE |
                                 SWAP_EFFECT_METRICS_SWAP | SWAP_EFFECT_METRICS_CLEAR;
        bool set = swap_plan_has(p, SWAP_EFFECT_RELOAD_BLOCK_SET), removed = swap_plan_has(p, SWAP_EFFECT_RELOAD_BLOCK_REMOVE);

        (*seen)++;
        if (mem->observe) {
                /* Observe changes nothing on the node, counts nothing. */
                cr_assert(!set && !removed);
                cr_assert_eq(p->effects & metrics, 0);
        } else {
                cr_assert(set != removed, "one of the reload block's two");
                cr_assert_eq(set, swap_state_is_unloaded(p->next));
        }
        cr_assert_eq(swap_plan_has(p, SWAP_EFFECT_MOUNT_WATCH_ON), p->next == SWAP_STATE_BLOCKED);
        cr_assert_eq(swap_plan_has(p, SWAP_EFFECT_FORGET_BLOCKERS), p->next != SWAP_STATE_BLOCKED);
        cr_assert_eq(p->effects, (p->effects & ~(swap_plan_rails(p->next, mem->observe))) |
                                         swap_plan_rails(p->next, mem->observe),
                     "the rails of a transition are the state's own (the reconcile applies the same)");
}

Test(swap_plan, the_guard_rails_follow_the_state) {
        cr_assert_gt(walk(rails_always), 0);
}

static void swapped_said_once(SwapState old, SwapEvent ev, const SwapContext *ctx, const SwapMemory *mem,
                              const SwapPlan *p, unsigned *seen) {
        bool entered = p->next == SWAP_STATE_SWAPPED && old != SWAP_STATE_SWAPPED;

        if (entered)
                (*seen)++;
        cr_assert_eq(swap_plan_has(p, SWAP_EFFECT_REPORT_SWAPPED), entered);
        cr_assert_eq(p->swapped_by_us, entered && old == SWAP_STATE_LOADING);
        /* Only the container's own load needs a connect of its own: ours asked. */
        cr_assert_eq(swap_plan_has(p, SWAP_EFFECT_FABRICS_CONNECT), entered && old != SWAP_STATE_LOADING);
        cr_assert_eq(swap_plan_has(p, SWAP_EFFECT_REPORT_GDS), entered);
        cr_assert_eq(swap_plan_has(p, SWAP_EFFECT_METRICS_SWAP),
                     !mem->observe && entered &&
                             (old == SWAP_STATE_LOADING || old == SWAP_STATE_UNLOADED_WAITING_DRIVER));
}

Test(swap_plan, swapped_is_said_and_counted_on_entry_only) {
        cr_assert_gt(walk(swapped_said_once), 0);
}

static void failure_said_once(SwapState old, SwapEvent ev, const SwapContext *ctx, const SwapMemory *mem,
                              const SwapPlan *p, unsigned *seen) {
        bool entered = p->next == SWAP_STATE_FAILED && old != SWAP_STATE_FAILED;

        if (entered)
                (*seen)++;
        /* An action that failed said why; otherwise the entry says it gave up. */
        cr_assert_eq(swap_plan_has(p, SWAP_EFFECT_REPORT_GAVE_UP), entered && !mem->failure_said);
        cr_assert_eq(swap_plan_has(p, SWAP_EFFECT_FORGET_FAILURE), p->next != old && p->next != SWAP_STATE_FAILED);
        cr_assert_eq(swap_plan_has(p, SWAP_EFFECT_REPORT_STOP_FAILED),
                     entered && mem->stopping && old == SWAP_STATE_RESTORING);
        cr_assert_eq(swap_plan_has(p, SWAP_EFFECT_REPORT_STOP_RESTORED),
                     p->next == SWAP_STATE_IDLE && old == SWAP_STATE_RESTORING && mem->stopping);
}

Test(swap_plan, a_failure_is_said_once) {
        cr_assert_gt(walk(failure_said_once), 0);
}

static void pod_end_only_while_restoring(SwapState old, SwapEvent ev, const SwapContext *ctx, const SwapMemory *mem,
                                         const SwapPlan *p, unsigned *seen) {
        const uint32_t pod = SWAP_EFFECT_POD_END_RESTORED | SWAP_EFFECT_POD_END_BLOCKED | SWAP_EFFECT_POD_END_FORGET;

        if (!mem->pod_end_restoring || p->next == old) {
                cr_assert_eq(p->effects & pod, 0);
                return;
        }
        (*seen)++;
        cr_assert_eq(swap_plan_has(p, SWAP_EFFECT_POD_END_RESTORED), p->next == SWAP_STATE_RESTORED);
        cr_assert_eq(swap_plan_has(p, SWAP_EFFECT_POD_END_BLOCKED), p->next == SWAP_STATE_BLOCKED);
        cr_assert_eq(swap_plan_has(p, SWAP_EFFECT_POD_END_FORGET),
                     p->next != SWAP_STATE_RESTORED && p->next != SWAP_STATE_BLOCKED &&
                             p->next != SWAP_STATE_RESTORING && p->next != SWAP_STATE_SWAPPED);
}

Test(swap_plan, the_pods_end_is_planned_only_while_its_restore_runs) {
        cr_assert_gt(walk(pod_end_only_while_restoring), 0);
}
