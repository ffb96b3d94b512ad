/* SPDX-License-Identifier: Apache-2.0 */
/* The state machine, table-driven: every state x event, each state with the
 * context that is typical of it, then the context-dependent branches. */

#include <criterion/criterion.h>
#include <errno.h>

#include "swap/swap-state.h"

#define N_ (SWAP_ACTION_NONE)
#define UL (SWAP_ACTION_UNLOAD)
#define RC (SWAP_ACTION_RECHECK_USAGE)
#define LD (SWAP_ACTION_LOAD)
#define RS (SWAP_ACTION_RESTORE)
#define RR (SWAP_ACTION_REPORT_RELOAD)
#define SR (SWAP_ACTION_REPORT_STALE_READY)

#define IDLE SWAP_STATE_IDLE
#define SEEN SWAP_STATE_CONTAINER_SEEN
#define BLKD SWAP_STATE_BLOCKED
#define UWD SWAP_STATE_UNLOADED_WAITING_DRIVER
#define LOAD SWAP_STATE_LOADING
#define SWPD SWAP_STATE_SWAPPED
#define RSTG SWAP_STATE_RESTORING
#define RSTD SWAP_STATE_RESTORED
#define FAIL SWAP_STATE_FAILED
#define RPRG SWAP_STATE_REPAIRING
#define NOB SWAP_STATE_NO_BUILD
#define WUL SWAP_STATE_WOULD_UNLOAD
#define WSWP SWAP_STATE_WOULD_SWAP

/* A: in-tree loaded, no ready file (the normal start). */
static const SwapContext ctx_in_tree = {
        .unload_at = UNLOAD_AT_CONTAINER_START, .load_from_container = true, .stack_loaded = true,
        .container_running = true,
};
/* B: we unloaded it, no ready file yet. */
static const SwapContext ctx_unloaded = {
        .unload_at = UNLOAD_AT_CONTAINER_START, .load_from_container = true, .container_running = true,
};
/* C: NVIDIA's build loaded and ready. */
static const SwapContext ctx_swapped = {
        .unload_at = UNLOAD_AT_CONTAINER_START, .load_from_container = true, .ready_present = true,
        .stack_loaded = true, .replacement_loaded = true, .container_running = true,
};
/* D: repairing: the in-tree stack is back, the container still compiles. */
static const SwapContext ctx_repairing = {
        .unload_at = UNLOAD_AT_CONTAINER_START, .load_from_container = true, .stack_loaded = true,
        .container_running = true,
};
/* E: the container will give no NVMe build; the in-tree stack is loaded. */
static const SwapContext ctx_no_build = {
        .unload_at = UNLOAD_AT_CONTAINER_START, .load_from_container = true, .stack_loaded = true,
        .container_running = true, .build_ruled_out = true,
};

typedef struct Row {
        SwapState state;
        const SwapContext *ctx;
        SwapTransition t[_SWAP_EVENT_MAX];
} Row;

#define X(s, a) { .next = (s), .action = (a) }

/* Columns: STARTED EXITED READY TIMEOUT USAGE MOD_IN_TREE MOD_OTHER STACK_GONE
 *          UNLOAD_DONE UNLOAD_REFUSED UNLOAD_FAILED UNLOAD_FAILED_UNRESTORED
 *          LOAD_DONE LOAD_FAILED RESTORE_DONE RESTORE_FAILED
 *          STOP_REQUESTED STACK_BROKEN LOAD_NO_BUILD READY_STALE
 *          UNLOAD_WOULD LOAD_WOULD (observe) POD_ENDED */
static const Row table[_SWAP_STATE_MAX] = {
        { IDLE, &ctx_in_tree, {
                X(SEEN, UL), X(IDLE, N_), X(IDLE, N_), X(IDLE, N_), X(IDLE, N_), X(IDLE, N_), X(IDLE, N_), X(RSTG, RS),
                X(IDLE, N_), X(IDLE, N_), X(IDLE, N_), X(IDLE, N_), X(IDLE, N_), X(IDLE, N_), X(IDLE, N_), X(IDLE, N_),
                X(IDLE, N_), X(RSTG, RS), X(IDLE, N_), X(IDLE, SR),
                X(IDLE, N_), X(IDLE, N_), X(IDLE, N_) } },
        { SEEN, &ctx_in_tree, {
                X(SEEN, N_), X(IDLE, N_), X(SEEN, UL), X(FAIL, N_), X(SEEN, N_), X(SEEN, N_), X(SEEN, N_), X(UWD, N_),
                X(UWD, N_), X(BLKD, N_), X(FAIL, N_), X(RSTG, RS), X(SEEN, N_), X(SEEN, N_), X(SEEN, N_), X(SEEN, N_),
                X(SEEN, N_), X(RPRG, RS), X(SEEN, N_), X(SEEN, SR),
                X(WUL, N_), X(SEEN, N_), X(SEEN, N_) } },
        { BLKD, &ctx_in_tree, {
                X(BLKD, N_), X(IDLE, N_), X(BLKD, UL), X(FAIL, N_), X(BLKD, RC), X(BLKD, N_), X(BLKD, N_), X(UWD, N_),
                X(UWD, N_), X(BLKD, N_), X(FAIL, N_), X(RSTG, RS), X(BLKD, N_), X(BLKD, N_), X(BLKD, N_), X(BLKD, N_),
                X(BLKD, N_), X(RPRG, RS), X(BLKD, N_), X(BLKD, SR),
                X(WUL, N_), X(BLKD, N_), X(BLKD, N_) } },
        { UWD, &ctx_unloaded, {
                X(UWD, N_), X(RSTG, RS), X(LOAD, LD), X(RSTG, RS), X(UWD, N_), X(SEEN, RR), X(UWD, N_), X(UWD, N_),
                X(UWD, N_), X(UWD, N_), X(UWD, N_), X(UWD, N_), X(UWD, N_), X(UWD, N_), X(UWD, N_), X(UWD, N_),
                X(RSTG, RS), X(RPRG, RS), X(UWD, N_), X(UWD, SR),
                X(UWD, N_), X(UWD, N_), X(UWD, N_) } },
        { LOAD, &ctx_unloaded, {
                X(LOAD, N_), X(LOAD, N_), X(LOAD, N_), X(LOAD, N_), X(LOAD, N_), X(LOAD, N_), X(LOAD, N_), X(LOAD, N_),
                X(LOAD, N_), X(LOAD, N_), X(LOAD, N_), X(LOAD, N_), X(SWPD, N_), X(RSTG, RS), X(LOAD, N_), X(LOAD, N_),
                X(RSTG, RS), X(LOAD, N_), X(RSTG, RS), X(LOAD, SR),
                X(LOAD, N_), X(WSWP, N_), X(LOAD, N_) } },
        { SWPD, &ctx_swapped, {
                X(SWPD, N_), X(SWPD, N_), X(SWPD, N_), X(SWPD, N_), X(SWPD, N_), X(SWPD, N_), X(SWPD, N_), X(RSTG, RS),
                X(SWPD, N_), X(SWPD, N_), X(SWPD, N_), X(SWPD, N_), X(SWPD, N_), X(SWPD, N_), X(SWPD, N_), X(SWPD, N_),
                X(SWPD, N_), X(RSTG, RS), X(SWPD, N_), X(SWPD, SR),
                X(SWPD, N_), X(SWPD, N_), X(SWPD, N_) } },
        { RSTG, &ctx_unloaded, {
                X(RSTG, N_), X(RSTG, N_), X(RSTG, N_), X(RSTG, N_), X(RSTG, N_), X(RSTG, N_), X(RSTG, N_), X(RSTG, N_),
                X(RSTG, N_), X(RSTG, N_), X(RSTG, N_), X(RSTG, N_), X(RSTG, N_), X(RSTG, N_), X(RSTD, N_), X(FAIL, N_),
                X(RSTG, N_), X(RSTG, N_), X(RSTG, N_), X(RSTG, SR),
                X(RSTG, N_), X(RSTG, N_), X(RSTG, N_) } },
        { RSTD, &ctx_in_tree, {
                X(SEEN, UL), X(IDLE, N_), X(SEEN, UL), X(RSTD, N_), X(RSTD, N_), X(RSTD, N_), X(RSTD, N_), X(RSTG, RS),
                X(RSTD, N_), X(RSTD, N_), X(RSTD, N_), X(RSTD, N_), X(RSTD, N_), X(RSTD, N_), X(RSTD, N_), X(RSTD, N_),
                X(RSTD, N_), X(RSTG, RS), X(RSTD, N_), X(RSTD, SR),
                X(RSTD, N_), X(RSTD, N_), X(RSTD, N_) } },
        { FAIL, &ctx_in_tree, {
                X(SEEN, UL), X(IDLE, N_), X(FAIL, N_), X(FAIL, N_), X(FAIL, N_), X(FAIL, N_), X(FAIL, N_), X(RSTG, RS),
                X(FAIL, N_), X(FAIL, N_), X(FAIL, N_), X(FAIL, N_), X(FAIL, N_), X(FAIL, N_), X(FAIL, N_), X(FAIL, N_),
                X(FAIL, N_), X(RSTG, RS), X(FAIL, N_), X(FAIL, SR),
                X(FAIL, N_), X(FAIL, N_), X(FAIL, N_) } },
        { RPRG, &ctx_repairing, {
                X(RPRG, N_), X(RPRG, N_), X(RPRG, N_), X(RPRG, N_), X(RPRG, N_), X(RPRG, N_), X(RPRG, N_), X(RPRG, N_),
                X(RPRG, N_), X(RPRG, N_), X(RPRG, N_), X(RPRG, N_), X(RPRG, N_), X(RPRG, N_), X(SEEN, N_), X(FAIL, N_),
                X(RPRG, N_), X(RPRG, N_), X(RPRG, N_), X(RPRG, SR),
                X(RPRG, N_), X(RPRG, N_), X(RPRG, N_) } },
        { NOB, &ctx_no_build, {
                X(NOB, N_), X(IDLE, N_), X(NOB, N_), X(NOB, N_), X(NOB, N_), X(NOB, N_), X(NOB, N_), X(RSTG, RS),
                X(NOB, N_), X(NOB, N_), X(NOB, N_), X(NOB, N_), X(NOB, N_), X(NOB, N_), X(NOB, N_), X(NOB, N_),
                X(NOB, N_), X(RSTG, RS), X(NOB, N_), X(NOB, SR),
                X(NOB, N_), X(NOB, N_), X(NOB, N_) } },
        /* Observe: the unload was rehearsed, the in-tree stack is still loaded. */
        { WUL, &ctx_in_tree, {
                X(WUL, N_), X(RSTG, RS), X(WUL, LD), X(RSTG, RS), X(WUL, N_), X(WUL, N_), X(WUL, N_), X(UWD, N_),
                X(WUL, N_), X(WUL, N_), X(WUL, N_), X(WUL, N_), X(WUL, N_), X(RSTG, RS), X(WUL, N_), X(WUL, N_),
                X(WUL, N_), X(RPRG, RS), X(RSTG, RS), X(WUL, SR),
                X(WUL, N_), X(WSWP, N_), X(WUL, N_) } },
        { WSWP, &ctx_in_tree, {
                X(SEEN, UL), X(WSWP, N_), X(WSWP, N_), X(WSWP, N_), X(WSWP, N_), X(WSWP, N_), X(WSWP, N_), X(RSTG, RS),
                X(WSWP, N_), X(WSWP, N_), X(WSWP, N_), X(WSWP, N_), X(WSWP, N_), X(WSWP, N_), X(WSWP, N_), X(WSWP, N_),
                X(WSWP, N_), X(RSTG, RS), X(WSWP, N_), X(WSWP, SR),
                X(WSWP, N_), X(WSWP, N_), X(WSWP, N_) } },
};

Test(swap_state, every_state_times_every_event) {
        unsigned checked = 0;

        for (int s = 0; s < _SWAP_STATE_MAX; s++) {
                cr_assert_eq(table[s].state, s, "table row %d out of order", s);
                for (int e = 0; e < _SWAP_EVENT_MAX; e++) {
                        SwapTransition got = swap_state_next(s, e, table[s].ctx);
                        SwapTransition want = table[s].t[e];

                        cr_expect(got.next == want.next && got.action == want.action,
                                  "%s + %s: got %s/%s, want %s/%s", swap_state_to_string(s), swap_event_to_string(e),
                                  swap_state_to_string(got.next), swap_action_to_string(got.action),
                                  swap_state_to_string(want.next), swap_action_to_string(want.action));
                        checked++;
                }
        }
        cr_assert_eq(checked, _SWAP_STATE_MAX * _SWAP_EVENT_MAX);
}

/* Whatever the context: the result is a valid state, and the actions that
 * change the kernel only come with the state that says so. */
Test(swap_state, invariants_over_all_contexts) {
        for (unsigned bits = 0; bits < 2048; bits++) {
                SwapContext ctx = {
                        .unload_at = (bits & 1) ? UNLOAD_AT_DRIVER_READY : UNLOAD_AT_CONTAINER_START,
                        .load_from_container = bits & 2,
                        .ready_present = bits & 4,
                        .stack_loaded = bits & 8,
                        .replacement_loaded = (bits & 8) && (bits & 16),
                        .earlier_build_loaded = (bits & 8) && (bits & 16) && (bits & 32),
                        .container_running = bits & 64,
                        .build_ruled_out = bits & 128,
                        .stopping = bits & 256,
                        .observe = bits & 512,
                        .pod_end_restore = (bits & 1024) && !(bits & 64),
                };

                for (int s = 0; s < _SWAP_STATE_MAX; s++)
                        for (int e = 0; e < _SWAP_EVENT_MAX; e++) {
                                SwapTransition t = swap_state_next(s, e, &ctx);

                                cr_assert(t.next >= 0 && t.next < _SWAP_STATE_MAX);
                                /* (would-unload: observe's load is a rehearsal) */
                                if (t.action == SWAP_ACTION_LOAD)
                                        cr_assert(t.next == SWAP_STATE_LOADING || t.next == SWAP_STATE_WOULD_UNLOAD);
                                /* Observe's outcomes never reach a state that counts the stack
                                 * as gone (reload block, restore on stop, reconcile) while it
                                 * is loaded. */
                                if ((e == SWAP_EVENT_UNLOAD_WOULD || e == SWAP_EVENT_LOAD_WOULD) &&
                                    !swap_state_is_unloaded(s) && ctx.stack_loaded)
                                        cr_assert(!swap_state_is_unloaded(t.next), "%s + %s -> %s",
                                                  swap_state_to_string(s), swap_event_to_string(e),
                                                  swap_state_to_string(t.next));
                                if (t.action == SWAP_ACTION_RESTORE)
                                        cr_assert(t.next == SWAP_STATE_RESTORING || t.next == SWAP_STATE_REPAIRING);
                                if (t.action == SWAP_ACTION_UNLOAD)
                                        cr_assert(ctx.stack_loaded && (!ctx.replacement_loaded || ctx.earlier_build_loaded ||
                                                                       ctx.pod_end_restore),
                                                  "%s + %s: unload of this container's own build (bits %u)", swap_state_to_string(s), swap_event_to_string(e), bits);
                                /* A node is never left without a driver by a container exit. */
                                if (e == SWAP_EVENT_CONTAINER_EXITED && swap_state_is_unloaded(s) &&
                                    s != SWAP_STATE_LOADING)
                                        cr_assert_eq(t.action, SWAP_ACTION_RESTORE);
                                /* ... nor by a stop of the daemon. */
                                if (e == SWAP_EVENT_STOP_REQUESTED && swap_state_is_unloaded(s))
                                        cr_assert_eq(t.action, SWAP_ACTION_RESTORE);
                                /* A stop starts nothing else. */
                                if (e == SWAP_EVENT_STOP_REQUESTED && !swap_state_is_unloaded(s))
                                        cr_assert(t.next == s && t.action == SWAP_ACTION_NONE);
                                if (e == SWAP_EVENT_CONTAINER_EXITED && t.next == SWAP_STATE_IDLE && s != SWAP_STATE_IDLE)
                                        cr_assert(ctx.stack_loaded, "%s + exit: idle with no NVMe driver",
                                                  swap_state_to_string(s));
                                /* A broken stack is repaired wherever we are not acting already. */
                                if (e == SWAP_EVENT_STACK_BROKEN && s != SWAP_STATE_LOADING &&
                                    s != SWAP_STATE_RESTORING && s != SWAP_STATE_REPAIRING)
                                        cr_assert_eq(t.action, SWAP_ACTION_RESTORE, "%s + stack-broken",
                                                     swap_state_to_string(s));
                                /* Never unload the in-tree stack nor load for a build that cannot come. */
                                if (ctx.container_running && ctx.build_ruled_out) {
                                        cr_assert_neq(t.action, SWAP_ACTION_LOAD);
                                        if (!ctx.earlier_build_loaded)
                                                cr_assert_neq(t.action, SWAP_ACTION_UNLOAD, "%s + %s",
                                                              swap_state_to_string(s), swap_event_to_string(e));
                                }
                                /* Swapped is reported only for a build that is there. */
                                if (t.next == SWAP_STATE_SWAPPED && s != SWAP_STATE_SWAPPED &&
                                    e != SWAP_EVENT_LOAD_DONE)
                                        cr_assert(ctx.replacement_loaded);
                                /* Observe never leaves a driverless node waiting for a load
                                 * it only rehearses. */
                                if (ctx.observe && !ctx.stack_loaded)
                                        cr_assert(t.action != SWAP_ACTION_LOAD &&
                                                          (t.next != SWAP_STATE_UNLOADED_WAITING_DRIVER || s == t.next),
                                                  "observe, driverless: %s + %s -> %s/%s", swap_state_to_string(s),
                                                  swap_event_to_string(e), swap_state_to_string(t.next),
                                                  swap_action_to_string(t.action));
                                /* A stale ready file changes nothing. */
                                if (e == SWAP_EVENT_READY_STALE)
                                        cr_assert(t.next == s && t.action == SWAP_ACTION_REPORT_STALE_READY);
                        }
        }
}

/* A new driver container after a swap is a new swap. */
Test(swap_state, new_container_over_earlier_build_container_start_mode) {
        SwapContext ctx = ctx_swapped;

        ctx.ready_present = false; /* the new container cleared it */
        ctx.earlier_build_loaded = true;
        SwapTransition t = swap_state_next(SWPD, SWAP_EVENT_CONTAINER_STARTED, &ctx);
        cr_assert_eq(t.next, SEEN);
        cr_assert_eq(t.action, UL);
        t = swap_state_next(SEEN, SWAP_EVENT_UNLOAD_DONE, &ctx_unloaded);
        cr_assert_eq(t.next, UWD);
        cr_assert_eq(t.action, N_);
        SwapContext ready = ctx_unloaded;
        ready.ready_present = true;
        t = swap_state_next(UWD, SWAP_EVENT_READY_APPEARED, &ready);
        cr_assert_eq(t.next, LOAD);
        cr_assert_eq(t.action, LD);
}

Test(swap_state, new_container_over_earlier_build_driver_ready_mode) {
        SwapContext ctx = ctx_swapped;

        ctx.unload_at = UNLOAD_AT_DRIVER_READY;
        ctx.ready_present = false;
        ctx.earlier_build_loaded = true;
        SwapTransition t = swap_state_next(SWPD, SWAP_EVENT_CONTAINER_STARTED, &ctx);
        cr_assert_eq(t.next, SEEN);
        cr_assert_eq(t.action, UL, "even in driver-ready mode: openibd restart would trip on it");
        SwapContext gone = ctx_unloaded;
        gone.unload_at = UNLOAD_AT_DRIVER_READY;
        t = swap_state_next(SEEN, SWAP_EVENT_UNLOAD_DONE, &gone);
        cr_assert_eq(t.next, RPRG, "the in-tree stack goes back meanwhile");
        cr_assert_eq(t.action, RS);
        SwapContext back = ctx_in_tree;
        back.unload_at = UNLOAD_AT_DRIVER_READY;
        t = swap_state_next(RPRG, SWAP_EVENT_RESTORE_DONE, &back);
        cr_assert_eq(t.next, SEEN);
        cr_assert_eq(t.action, N_);
        back.ready_present = true;
        t = swap_state_next(SEEN, SWAP_EVENT_READY_APPEARED, &back);
        cr_assert_eq(t.action, UL);
}

Test(swap_state, new_container_over_earlier_build_refused) {
        SwapContext ctx = ctx_swapped;

        ctx.earlier_build_loaded = true;
        SwapTransition t = swap_state_next(SEEN, SWAP_EVENT_UNLOAD_REFUSED, &ctx);
        cr_assert_eq(t.next, BLKD);
        /* The container exits (crash loop): the earlier build still drives the node. */
        t = swap_state_next(BLKD, SWAP_EVENT_CONTAINER_EXITED, &ctx);
        cr_assert_eq(t.next, SWPD);
        /* Its ready file (it got that far): the earlier build is still in: try again. */
        t = swap_state_next(BLKD, SWAP_EVENT_READY_APPEARED, &ctx);
        cr_assert_eq(t.next, BLKD);
        cr_assert_eq(t.action, UL);
}

Test(swap_state, same_container_build_is_not_earlier) {
        /* An older image loaded its own build: the ready file reports it swapped. */
        SwapTransition t = swap_state_next(UWD, SWAP_EVENT_READY_APPEARED, &ctx_swapped);

        cr_assert_eq(t.next, SWPD);
        cr_assert_eq(t.action, N_);
}

Test(swap_state, environment_rules_out_the_build) {
        SwapTransition t = swap_state_next(IDLE, SWAP_EVENT_CONTAINER_STARTED, &ctx_no_build);

        cr_assert_eq(t.next, NOB);
        cr_assert_eq(t.action, N_, "never unload for a build that cannot come");
        SwapContext absent = ctx_no_build;
        absent.stack_loaded = false;
        t = swap_state_next(IDLE, SWAP_EVENT_CONTAINER_STARTED, &absent);
        cr_assert_eq(t.next, RSTG);
        t = swap_state_next(RSTG, SWAP_EVENT_RESTORE_DONE, &ctx_no_build);
        cr_assert_eq(t.next, NOB);
        /* Over an earlier build: take it out, then the in-tree stack back. */
        SwapContext earlier = ctx_swapped;
        earlier.earlier_build_loaded = true;
        earlier.build_ruled_out = true;
        earlier.ready_present = false;
        t = swap_state_next(SWPD, SWAP_EVENT_CONTAINER_STARTED, &earlier);
        cr_assert_eq(t.action, UL);
        absent.ready_present = false;
        t = swap_state_next(SEEN, SWAP_EVENT_UNLOAD_DONE, &absent);
        cr_assert_eq(t.next, RSTG);
        cr_assert_eq(t.action, RS);
}

Test(swap_state, tree_without_a_build_is_never_swapped) {
        SwapTransition t = swap_state_next(LOAD, SWAP_EVENT_LOAD_NO_BUILD, &ctx_unloaded);

        cr_assert_eq(t.next, RSTG);
        cr_assert_eq(t.action, RS);
        t = swap_state_next(RSTG, SWAP_EVENT_RESTORE_DONE, &ctx_no_build);
        cr_assert_eq(t.next, NOB);
        t = swap_state_next(NOB, SWAP_EVENT_READY_APPEARED, &ctx_no_build);
        cr_assert_eq(t.next, NOB);
        cr_assert_eq(t.action, N_);
}

Test(swap_state, broken_stack_while_waiting_is_repaired_and_waited_on) {
        SwapContext broken = ctx_unloaded;

        broken.stack_loaded = true; /* e.g. nvme_core alone */
        SwapTransition t = swap_state_next(UWD, SWAP_EVENT_STACK_BROKEN, &broken);
        cr_assert_eq(t.next, RPRG);
        cr_assert_eq(t.action, RS);
        t = swap_state_next(RPRG, SWAP_EVENT_RESTORE_DONE, &ctx_in_tree);
        cr_assert_eq(t.next, SEEN);
        /* Without a container the repair settles. */
        SwapContext alone = ctx_in_tree;
        alone.container_running = false;
        t = swap_state_next(RPRG, SWAP_EVENT_RESTORE_DONE, &alone);
        cr_assert_eq(t.next, RSTD);
        t = swap_state_next(IDLE, SWAP_EVENT_STACK_BROKEN, &alone);
        cr_assert_eq(t.next, RSTG);
        cr_assert_eq(t.action, RS);
}

Test(swap_state, container_exit_with_no_stack_restores) {
        SwapTransition t = swap_state_next(SEEN, SWAP_EVENT_CONTAINER_EXITED, &ctx_unloaded);

        cr_assert_eq(t.next, RSTG);
        cr_assert_eq(t.action, RS);
}

Test(swap_state, driver_ready_mode_waits) {
        SwapContext ctx = ctx_in_tree;

        ctx.unload_at = UNLOAD_AT_DRIVER_READY;
        SwapTransition t = swap_state_next(IDLE, SWAP_EVENT_CONTAINER_STARTED, &ctx);
        cr_assert_eq(t.next, SEEN);
        cr_assert_eq(t.action, N_);
        ctx.ready_present = true;
        t = swap_state_next(SEEN, SWAP_EVENT_READY_APPEARED, &ctx);
        cr_assert_eq(t.next, SEEN);
        cr_assert_eq(t.action, UL);
        /* Unloaded with the ready file there: load right away. */
        t = swap_state_next(SEEN, SWAP_EVENT_UNLOAD_DONE, &ctx);
        cr_assert_eq(t.next, LOAD);
        cr_assert_eq(t.action, LD);
}

Test(swap_state, older_image_loaded_it_itself) {
        SwapTransition t = swap_state_next(UWD, SWAP_EVENT_READY_APPEARED, &ctx_swapped);

        cr_assert_eq(t.next, SWPD);
        cr_assert_eq(t.action, N_);
        t = swap_state_next(UWD, SWAP_EVENT_MODULE_ADDED_OTHER, &ctx_swapped);
        cr_assert_eq(t.next, UWD);
}

Test(swap_state, no_loading_from_container_restores_at_ready) {
        SwapContext ctx = ctx_unloaded;

        ctx.load_from_container = false;
        ctx.ready_present = true;
        SwapTransition t = swap_state_next(UWD, SWAP_EVENT_READY_APPEARED, &ctx);
        cr_assert_eq(t.next, RSTG);
        cr_assert_eq(t.action, RS);
}

Test(swap_state, start_with_stack_absent) {
        SwapTransition t = swap_state_next(IDLE, SWAP_EVENT_CONTAINER_STARTED, &ctx_unloaded);

        cr_assert_eq(t.next, UWD);
        cr_assert_eq(t.action, N_);
        SwapContext ctx = ctx_unloaded;
        ctx.ready_present = true;
        t = swap_state_next(IDLE, SWAP_EVENT_CONTAINER_STARTED, &ctx);
        cr_assert_eq(t.next, LOAD);
}

Test(swap_state, failed_without_driver_restores_on_exit) {
        SwapTransition t = swap_state_next(FAIL, SWAP_EVENT_CONTAINER_EXITED, &ctx_unloaded);

        cr_assert_eq(t.next, RSTG);
        cr_assert_eq(t.action, RS);
}

Test(swap_state, container_seen_exit_with_replacement_is_swapped) {
        SwapTransition t = swap_state_next(SEEN, SWAP_EVENT_CONTAINER_EXITED, &ctx_swapped);

        cr_assert_eq(t.next, SWPD);
}

static void expect_transition(SwapState s, SwapEvent e, const SwapContext *ctx, SwapState next, SwapAction a) {
        SwapTransition t = swap_state_next(s, e, ctx);

        cr_expect(t.next == next && t.action == a, "%s + %s: got %s/%s, want %s/%s", swap_state_to_string(s),
                  swap_event_to_string(e), swap_state_to_string(t.next), swap_action_to_string(t.action),
                  swap_state_to_string(next), swap_action_to_string(a));
}

/* A stop while unloaded restores and ends in idle (the next start swaps
 * again), not in restored (an abandoned swap the next start keeps). */
Test(swap_state, stop_while_unloaded_restores_to_idle) {
        SwapContext ctx = ctx_unloaded;

        ctx.stopping = true;
        expect_transition(UWD, SWAP_EVENT_STOP_REQUESTED, &ctx, RSTG, RS);
        expect_transition(LOAD, SWAP_EVENT_STOP_REQUESTED, &ctx, RSTG, RS);
        expect_transition(RSTG, SWAP_EVENT_RESTORE_DONE, &ctx, IDLE, N_);
        expect_transition(RSTG, SWAP_EVENT_RESTORE_FAILED, &ctx, FAIL, N_);
}

/* The pod ended (killed before its own cleanup, crashed) with
 * RESTORE_DRIVER_ON_POD_TERMINATION=true, its build still loaded: the daemon
 * takes the build out (guarded) and puts the in-tree stack back. */
Test(swap_state, pod_end_restores_what_the_daemon_loaded) {
        SwapContext ctx = ctx_swapped, out, in;

        ctx.container_running = false;
        ctx.ready_present = true; /* a crash leaves its ready file behind */
        expect_transition(SWPD, SWAP_EVENT_CONTAINER_EXITED, &ctx, SWPD, N_);
        expect_transition(SWPD, SWAP_EVENT_POD_ENDED, &ctx, SWPD, N_); /* false or unset: the build stays */
        ctx.pod_end_restore = true;
        expect_transition(SWPD, SWAP_EVENT_POD_ENDED, &ctx, SWPD, UL);
        out = ctx;
        out.stack_loaded = out.replacement_loaded = false;
        expect_transition(SWPD, SWAP_EVENT_UNLOAD_DONE, &out, RSTG, RS);
        expect_transition(RSTG, SWAP_EVENT_RESTORE_DONE, &out, RSTD, N_);
        /* A namespace in use: blocked, retried when the use ends. */
        expect_transition(SWPD, SWAP_EVENT_UNLOAD_REFUSED, &ctx, BLKD, N_);
        expect_transition(BLKD, SWAP_EVENT_USAGE_CHANGED, &ctx, BLKD, RC);
        expect_transition(BLKD, SWAP_EVENT_UNLOAD_DONE, &out, RSTG, RS);
        expect_transition(BLKD, SWAP_EVENT_READY_TIMEOUT, &ctx, BLKD, N_); /* no ready file is awaited */
        expect_transition(BLKD, SWAP_EVENT_STACK_GONE, &out, RSTG, RS);
        /* The library put the build back after a failed removal: the node keeps it. */
        expect_transition(SWPD, SWAP_EVENT_UNLOAD_FAILED, &ctx, FAIL, N_);
        expect_transition(SWPD, SWAP_EVENT_UNLOAD_FAILED_UNRESTORED, &out, RSTG, RS);
        /* The container took it out itself, and the in-tree stack is back: nothing to do. */
        in = ctx;
        in.replacement_loaded = false;
        expect_transition(SWPD, SWAP_EVENT_POD_ENDED, &in, SWPD, N_);
        /* ... or nothing is loaded at all: never settle without a driver. */
        expect_transition(SWPD, SWAP_EVENT_POD_ENDED, &out, RSTG, RS);
        /* A new driver container came meanwhile: its swap, not a restore. */
        ctx.container_running = true;
        expect_transition(SWPD, SWAP_EVENT_POD_ENDED, &ctx, SWPD, N_);
        /* Unload outcomes in swapped mean nothing outside the pod's end. */
        expect_transition(SWPD, SWAP_EVENT_UNLOAD_DONE, &ctx_swapped, SWPD, N_);
        /* Only swapped acts on it. */
        for (int st = 0; st < _SWAP_STATE_MAX; st++)
                if (st != SWPD)
                        expect_transition(st, SWAP_EVENT_POD_ENDED, &out, st, N_);
}

/* A crash loop: the restarted attempt met the ready file its
 * predecessor left, the load from its tree failed (no build yet), the
 * in-tree stack came back; its own ready file later swaps, through the
 * guard, and only when a build can come from it. */
Test(swap_state, restored_swaps_again_at_a_later_ready_file) {
        SwapContext ctx = ctx_in_tree;
        SwapTransition t;

        ctx.ready_present = true;
        t = swap_state_next(RSTD, SWAP_EVENT_READY_APPEARED, &ctx);
        cr_assert_eq(t.next, SEEN);
        cr_assert_eq(t.action, UL);
        ctx.load_from_container = false;
        cr_assert_eq(swap_state_next(RSTD, SWAP_EVENT_READY_APPEARED, &ctx).action, N_);
        ctx = ctx_no_build;
        cr_assert_eq(swap_state_next(RSTD, SWAP_EVENT_READY_APPEARED, &ctx).action, N_);
        ctx = ctx_in_tree;
        ctx.container_running = false;
        cr_assert_eq(swap_state_next(RSTD, SWAP_EVENT_READY_APPEARED, &ctx).action, N_);
        ctx = ctx_in_tree;
        ctx.observe = true;
        cr_assert_eq(swap_state_next(RSTD, SWAP_EVENT_READY_APPEARED, &ctx).action, N_);
}

Test(swap_state, invalid_input) {
        cr_assert_eq(swap_state_next(-1, 0, &ctx_in_tree).next, _SWAP_STATE_INVALID);
        cr_assert_eq(swap_state_next(0, _SWAP_EVENT_MAX, &ctx_in_tree).next, _SWAP_STATE_INVALID);
        cr_assert_eq(swap_state_next(0, 0, NULL).next, _SWAP_STATE_INVALID);
}

Test(swap_state, names_round_trip) {
        for (int s = 0; s < _SWAP_STATE_MAX; s++)
                cr_assert_eq(swap_state_from_string(swap_state_to_string(s)), s);
        for (int e = 0; e < _SWAP_EVENT_MAX; e++)
                cr_assert_not_null(swap_event_to_string(e));
        for (int a = 0; a < _SWAP_ACTION_MAX; a++)
                cr_assert_not_null(swap_action_to_string(a));
        cr_assert_eq(swap_state_from_string("nonsense"), _SWAP_STATE_INVALID);
        cr_assert_eq(unload_at_from_string("driver-ready"), UNLOAD_AT_DRIVER_READY);
        cr_assert_eq(unload_at_from_string("later"), _UNLOAD_AT_INVALID);
}

/* Observe never waits for a build with the node driverless (an
 * enforce instance killed while unloaded, then restarted in observe): the
 * in-tree stack back at once. Its rehearsed unload still goes where enforce
 * would, waiting for the ready file in would-unload. */
Test(swap_state, observe_restores_a_driverless_node_and_rehearses_the_rest) {
        SwapContext driverless = ctx_unloaded, in_tree = ctx_in_tree;
        SwapTransition t;

        driverless.observe = in_tree.observe = true;
        t = swap_state_next(SWAP_STATE_IDLE, SWAP_EVENT_CONTAINER_STARTED, &driverless);
        cr_assert(t.next == SWAP_STATE_RESTORING && t.action == SWAP_ACTION_RESTORE, "got %s/%s",
                  swap_state_to_string(t.next), swap_action_to_string(t.action));
        t = swap_state_next(SWAP_STATE_WOULD_UNLOAD, SWAP_EVENT_STACK_GONE, &driverless);
        cr_assert(t.next == SWAP_STATE_RESTORING && t.action == SWAP_ACTION_RESTORE);
        t = swap_state_next(SWAP_STATE_CONTAINER_SEEN, SWAP_EVENT_UNLOAD_WOULD, &in_tree);
        cr_assert(t.next == SWAP_STATE_WOULD_UNLOAD && t.action == SWAP_ACTION_NONE, "got %s/%s",
                  swap_state_to_string(t.next), swap_action_to_string(t.action));
        in_tree.ready_present = true;
        t = swap_state_next(SWAP_STATE_CONTAINER_SEEN, SWAP_EVENT_UNLOAD_WOULD, &in_tree);
        cr_assert(t.next == SWAP_STATE_WOULD_UNLOAD && t.action == SWAP_ACTION_LOAD);
        /* enforce, the same driverless node: waits for the ready file as before */
        driverless.observe = false;
        t = swap_state_next(SWAP_STATE_IDLE, SWAP_EVENT_CONTAINER_STARTED, &driverless);
        cr_assert_eq(t.next, SWAP_STATE_UNLOADED_WAITING_DRIVER);
}
