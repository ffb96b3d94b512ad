/* SPDX-License-Identifier: Apache-2.0 */
#include <stddef.h>

#include "swap/swap-state.h"

#define T(s, a) ((SwapTransition) { .next = (s), .action = (a) })

/* Nothing of the stack is loaded and the driver is ready (or we were told
 * not to load it ourselves): load it from the container, or, when loading is
 * not ours to do, put the in-tree stack back so the drives have a driver. */
static SwapTransition stack_absent_and_ready(const SwapContext *ctx) {
        if (ctx->load_from_container && !ctx->observe) /* observe: see stack_removed() */
                return T(SWAP_STATE_LOADING, SWAP_ACTION_LOAD);
        return T(SWAP_STATE_RESTORING, SWAP_ACTION_RESTORE);
}

/* The stack is gone (we removed the in-tree one or an earlier container's
 * build, or someone else did) while a driver container is followed. */
static SwapTransition stack_removed(const SwapContext *ctx) {
        if (ctx->observe)
                /* Observe never loads a build, so it never waits for one with
                 * the node driverless (an enforce instance killed mid-swap,
                 * then the switch): the in-tree stack back now, the one
                 * thing observe does (node-ops-observe.c). */
                return T(SWAP_STATE_RESTORING, SWAP_ACTION_RESTORE);
        if (ctx->pod_end_restore && !ctx->container_running)
                /* The pod's end: what we took out was the ended container's build;
                 * the in-tree stack goes back, whatever file the container left. */
                return T(SWAP_STATE_RESTORING, SWAP_ACTION_RESTORE);
        if (ctx->container_running && ctx->build_ruled_out)
                /* No build will come: never leave the node driverless waiting for it. */
                return T(SWAP_STATE_RESTORING, SWAP_ACTION_RESTORE);
        if (ctx->ready_present)
                return stack_absent_and_ready(ctx);
        if (ctx->unload_at == UNLOAD_AT_DRIVER_READY && ctx->container_running)
                /* Keep the drives up until the ready file: the in-tree stack back meanwhile. */
                return T(SWAP_STATE_REPAIRING, SWAP_ACTION_RESTORE);
        return T(SWAP_STATE_UNLOADED_WAITING_DRIVER, SWAP_ACTION_NONE);
}

static SwapTransition container_started(const SwapContext *ctx) {
        if (ctx->earlier_build_loaded)
                /* A new container is a new swap: take the earlier build out (guarded)
                 * before this container's openibd restart trips on it; swap in this
                 * container's build at its ready file. */
                return T(SWAP_STATE_CONTAINER_SEEN, SWAP_ACTION_UNLOAD);
        if (ctx->replacement_loaded)
                /* Already swapped (older image, or a daemon restart): report at ready. */
                return ctx->ready_present ? T(SWAP_STATE_SWAPPED, SWAP_ACTION_NONE)
                                          : T(SWAP_STATE_CONTAINER_SEEN, SWAP_ACTION_NONE);
        if (!ctx->stack_loaded)
                return stack_removed(ctx);
        if (ctx->build_ruled_out)
                /* Never unload for a build that cannot come. */
                return T(SWAP_STATE_NO_BUILD, SWAP_ACTION_NONE);
        if (ctx->unload_at == UNLOAD_AT_CONTAINER_START || ctx->ready_present)
                return T(SWAP_STATE_CONTAINER_SEEN, SWAP_ACTION_UNLOAD);
        return T(SWAP_STATE_CONTAINER_SEEN, SWAP_ACTION_NONE);
}

/* The ready file appeared while we wait for it in `state`. */
static SwapTransition ready_appeared(SwapState state, const SwapContext *ctx) {
        if (ctx->earlier_build_loaded)
                /* Still the earlier container's build (the unload was refused): try again. */
                return T(state, SWAP_ACTION_UNLOAD);
        if (ctx->replacement_loaded)
                return T(SWAP_STATE_SWAPPED, SWAP_ACTION_NONE);
        if (ctx->container_running && ctx->build_ruled_out)
                return ctx->stack_loaded ? T(SWAP_STATE_NO_BUILD, SWAP_ACTION_NONE)
                                         : T(SWAP_STATE_RESTORING, SWAP_ACTION_RESTORE);
        if (ctx->stack_loaded)
                /* In-tree still there (driver-ready mode, blocked, or reloaded behind
                 * our back): unload now; the guard refuses if anything is in use. */
                return T(state, SWAP_ACTION_UNLOAD);
        return stack_absent_and_ready(ctx);
}

/* Observe: the unload was only rehearsed. Go where enforce would
 * go after the unload, with the states that wait for a driver replaced by
 * would-unload: the in-tree stack is still loaded for real, so nothing that
 * keys on the stack being gone (the reload block, a stop's restore,
 * reconcile's "we unloaded") applies. The restores enforce would run are
 * rehearsed too ("would restore"). */
static SwapTransition would_unloaded(const SwapContext *ctx) {
        SwapContext as_if = *ctx;
        SwapTransition t;

        if (!ctx->stack_loaded)
                return stack_removed(ctx); /* gone for real since the rehearsal */
        as_if.observe = false; /* where enforce would go: the stack only seems gone */
        t = stack_removed(&as_if);

        if (t.next == SWAP_STATE_UNLOADED_WAITING_DRIVER || t.next == SWAP_STATE_LOADING)
                t.next = SWAP_STATE_WOULD_UNLOAD;
        return t;
}

static SwapTransition unload_result(SwapState state, SwapEvent event, const SwapContext *ctx) {
        switch (event) {
        case SWAP_EVENT_UNLOAD_DONE:
                return stack_removed(ctx);
        case SWAP_EVENT_UNLOAD_WOULD:
                return would_unloaded(ctx);
        case SWAP_EVENT_UNLOAD_REFUSED:
                return T(SWAP_STATE_BLOCKED, SWAP_ACTION_NONE);
        case SWAP_EVENT_UNLOAD_FAILED:
                /* The library put back what it removed: the node is as before. */
                return T(SWAP_STATE_FAILED, SWAP_ACTION_NONE);
        case SWAP_EVENT_UNLOAD_FAILED_UNRESTORED:
                return T(SWAP_STATE_RESTORING, SWAP_ACTION_RESTORE);
        default:
                return T(state, SWAP_ACTION_NONE);
        }
}

/* The stack is broken (nvme_core without nvme, a transport without its
 * core, two builds mixed), whoever broke it: put the in-tree stack back,
 * guarded (the restore takes out what is left of an out-of-tree build
 * first). While a driver container is still expected, go on waiting for it
 * afterwards; otherwise settle in restored. */
static SwapTransition stack_broken(const SwapContext *ctx, bool waiting) {
        if (waiting && ctx->container_running && !ctx->build_ruled_out)
                return T(SWAP_STATE_REPAIRING, SWAP_ACTION_RESTORE);
        return T(SWAP_STATE_RESTORING, SWAP_ACTION_RESTORE);
}

/* Waiting for the container to finish compiling, in-tree stack (or an
 * earlier swap's build) still loaded: CONTAINER_SEEN and BLOCKED. */
static SwapTransition next_before_unload(SwapState state, SwapEvent event, const SwapContext *ctx) {
        switch (event) {
        case SWAP_EVENT_CONTAINER_EXITED:
                /* Nothing of ours to undo, unless the stack went meanwhile. */
                if (!ctx->stack_loaded)
                        return T(SWAP_STATE_RESTORING, SWAP_ACTION_RESTORE);
                return T(ctx->replacement_loaded ? SWAP_STATE_SWAPPED : SWAP_STATE_IDLE, SWAP_ACTION_NONE);
        case SWAP_EVENT_READY_APPEARED:
                return ready_appeared(state, ctx);
        case SWAP_EVENT_READY_TIMEOUT:
                if (ctx->pod_end_restore && !ctx->container_running)
                        /* Blocked on the pod's end: no ready file is awaited. */
                        return T(state, SWAP_ACTION_NONE);
                /* Nothing was touched; the container never got ready. */
                return T(SWAP_STATE_FAILED, SWAP_ACTION_NONE);
        case SWAP_EVENT_USAGE_CHANGED:
                if (state == SWAP_STATE_BLOCKED)
                        return T(state, SWAP_ACTION_RECHECK_USAGE);
                return T(state, SWAP_ACTION_NONE);
        case SWAP_EVENT_STACK_GONE:
                /* E.g. openibd restart of a new driver container took away the
                 * previous swap's build: wait for this container's. */
                return stack_removed(ctx);
        case SWAP_EVENT_STACK_BROKEN:
                return stack_broken(ctx, true);
        case SWAP_EVENT_UNLOAD_DONE:
        case SWAP_EVENT_UNLOAD_REFUSED:
        case SWAP_EVENT_UNLOAD_FAILED:
        case SWAP_EVENT_UNLOAD_FAILED_UNRESTORED:
        case SWAP_EVENT_UNLOAD_WOULD:
                return unload_result(state, event, ctx);
        default:
                return T(state, SWAP_ACTION_NONE);
        }
}

static SwapTransition next_unloaded_waiting(SwapEvent event, const SwapContext *ctx) {
        const SwapState s = SWAP_STATE_UNLOADED_WAITING_DRIVER;

        switch (event) {
        case SWAP_EVENT_CONTAINER_EXITED:
        case SWAP_EVENT_READY_TIMEOUT:
                /* The driver will not come: never leave the node without one. */
                return T(SWAP_STATE_RESTORING, SWAP_ACTION_RESTORE);
        case SWAP_EVENT_STOP_REQUESTED:
                /* We cannot tell a restart from a stop for good: never exit
                 * leaving the node without a driver (see on_terminate()). */
                return T(SWAP_STATE_RESTORING, SWAP_ACTION_RESTORE);
        case SWAP_EVENT_READY_APPEARED:
                return ready_appeared(s, ctx);
        case SWAP_EVENT_MODULE_ADDED_IN_TREE:
                /* Something loaded the in-tree stack behind the reload block.
                 * Report it; do not fight it now, swap again at ready. */
                return T(SWAP_STATE_CONTAINER_SEEN, SWAP_ACTION_REPORT_RELOAD);
        case SWAP_EVENT_STACK_BROKEN:
                return stack_broken(ctx, true);
        default:
                return T(s, SWAP_ACTION_NONE);
        }
}

/* Observe: the in-tree stack is still loaded (the unload was rehearsed),
 * waiting for the ready file to rehearse the load. Mirrors
 * unloaded-waiting-driver, except that a stop has nothing to put back. */
static SwapTransition next_would_unload(SwapEvent event, const SwapContext *ctx) {
        const SwapState s = SWAP_STATE_WOULD_UNLOAD;

        switch (event) {
        case SWAP_EVENT_CONTAINER_EXITED:
        case SWAP_EVENT_READY_TIMEOUT:
                /* Enforce would restore here: rehearse it. */
                return T(SWAP_STATE_RESTORING, SWAP_ACTION_RESTORE);
        case SWAP_EVENT_READY_APPEARED:
                if (ctx->replacement_loaded)
                        /* The container loaded its own build (older images). */
                        return T(SWAP_STATE_SWAPPED, SWAP_ACTION_NONE);
                if (!ctx->stack_loaded)
                        /* Gone for real meanwhile, its uevent not seen yet. */
                        return stack_removed(ctx);
                if (ctx->container_running && ctx->build_ruled_out)
                        return T(SWAP_STATE_RESTORING, SWAP_ACTION_RESTORE);
                if (!ctx->load_from_container)
                        return T(SWAP_STATE_RESTORING, SWAP_ACTION_RESTORE);
                return T(s, SWAP_ACTION_LOAD);
        case SWAP_EVENT_LOAD_WOULD:
                return T(SWAP_STATE_WOULD_SWAP, SWAP_ACTION_NONE);
        case SWAP_EVENT_LOAD_FAILED:
        case SWAP_EVENT_LOAD_NO_BUILD:
                return T(SWAP_STATE_RESTORING, SWAP_ACTION_RESTORE);
        case SWAP_EVENT_STACK_GONE:
                /* Someone else took the stack away, for real. */
                return stack_removed(ctx);
        case SWAP_EVENT_STACK_BROKEN:
                return stack_broken(ctx, true);
        default:
                /* stop-requested included: nothing was taken away. */
                return T(s, SWAP_ACTION_NONE);
        }
}

/* A restore finished: settle, or go on waiting for the container when the
 * restore only bridged the time until its ready file (repairing). */
static SwapTransition restore_done(SwapState state, const SwapContext *ctx) {
        if (ctx->stopping)
                /* A restore for a stop is not an abandoned swap: the next
                 * start swaps again, from idle. */
                return T(SWAP_STATE_IDLE, SWAP_ACTION_NONE);
        if (ctx->container_running && ctx->build_ruled_out)
                return T(SWAP_STATE_NO_BUILD, SWAP_ACTION_NONE);
        if (state == SWAP_STATE_RESTORING || !ctx->container_running)
                return T(SWAP_STATE_RESTORED, SWAP_ACTION_NONE);
        if (ctx->ready_present)
                /* It got ready meanwhile: swap now. */
                return ready_appeared(SWAP_STATE_CONTAINER_SEEN, ctx);
        return T(SWAP_STATE_CONTAINER_SEEN, SWAP_ACTION_NONE);
}

static SwapTransition next_restoring(SwapState state, SwapEvent event, const SwapContext *ctx) {
        if (event == SWAP_EVENT_RESTORE_DONE)
                return restore_done(state, ctx);
        if (event == SWAP_EVENT_RESTORE_FAILED)
                return T(SWAP_STATE_FAILED, SWAP_ACTION_NONE);
        return T(state, SWAP_ACTION_NONE);
}

/* SWAPPED, the pod's end: the bounded wait for the container's
 * own cleanup is over. Its build still loaded and the restore asked for:
 * take the build out through the guard (refused while a namespace is in
 * use: blocked, retried when the use ends), then the in-tree stack back.
 * The unload's outcome comes back here. */
static SwapTransition pod_end(SwapEvent event, const SwapContext *ctx) {
        const SwapState s = SWAP_STATE_SWAPPED;

        if (!ctx->pod_end_restore || ctx->container_running)
                return T(s, SWAP_ACTION_NONE);
        switch (event) {
        case SWAP_EVENT_POD_ENDED:
                if (!ctx->stack_loaded)
                        return T(SWAP_STATE_RESTORING, SWAP_ACTION_RESTORE);
                return ctx->replacement_loaded ? T(s, SWAP_ACTION_UNLOAD) : T(s, SWAP_ACTION_NONE);
        case SWAP_EVENT_UNLOAD_DONE:
        case SWAP_EVENT_UNLOAD_REFUSED:
        case SWAP_EVENT_UNLOAD_FAILED:
        case SWAP_EVENT_UNLOAD_FAILED_UNRESTORED:
                return unload_result(s, event, ctx);
        default:
                return T(s, SWAP_ACTION_NONE);
        }
}

static SwapTransition next_settled(SwapState state, SwapEvent event, const SwapContext *ctx) {
        /* IDLE, SWAPPED, RESTORED, FAILED, NO_BUILD, WOULD_SWAP: only a new container or
         * the loss of a working stack makes us act. */
        switch (event) {
        case SWAP_EVENT_CONTAINER_STARTED:
                return container_started(ctx);
        case SWAP_EVENT_CONTAINER_EXITED:
                if (state == SWAP_STATE_RESTORED || state == SWAP_STATE_NO_BUILD || state == SWAP_STATE_FAILED)
                        return ctx->stack_loaded ? T(SWAP_STATE_IDLE, SWAP_ACTION_NONE)
                                                 : T(SWAP_STATE_RESTORING, SWAP_ACTION_RESTORE);
                return T(state, SWAP_ACTION_NONE);
        case SWAP_EVENT_READY_APPEARED:
                /* A restore after a failed load for the followed container (the
                 * ready file then was an earlier attempt's, left by a crash:
                 * its tree had no build yet) is not its last word: a ready
                 * file made since says its build is there now. Swap again,
                 * through the guard. */
                if (state == SWAP_STATE_RESTORED && ctx->container_running && !ctx->build_ruled_out &&
                    ctx->load_from_container && !ctx->observe)
                        return container_started(ctx);
                return T(state, SWAP_ACTION_NONE);
        case SWAP_EVENT_STACK_GONE:
                /* Someone removed the build we swapped in, or the in-tree stack:
                 * never idle with no NVMe driver. */
                return T(SWAP_STATE_RESTORING, SWAP_ACTION_RESTORE);
        case SWAP_EVENT_STACK_BROKEN:
                return stack_broken(ctx, false);
        case SWAP_EVENT_POD_ENDED:
        case SWAP_EVENT_UNLOAD_DONE:
        case SWAP_EVENT_UNLOAD_REFUSED:
        case SWAP_EVENT_UNLOAD_FAILED:
        case SWAP_EVENT_UNLOAD_FAILED_UNRESTORED:
                return state == SWAP_STATE_SWAPPED ? pod_end(event, ctx) : T(state, SWAP_ACTION_NONE);
        default:
                return T(state, SWAP_ACTION_NONE);
        }
}

SwapTransition swap_state_next(SwapState state, SwapEvent event, const SwapContext *ctx) {
        if (state < 0 || state >= _SWAP_STATE_MAX || event < 0 || event >= _SWAP_EVENT_MAX || !ctx)
                return T(_SWAP_STATE_INVALID, SWAP_ACTION_NONE);

        if (event == SWAP_EVENT_READY_STALE)
                /* Left by an earlier instance: it says nothing about this one. */
                return T(state, SWAP_ACTION_REPORT_STALE_READY);

        switch (state) {
        case SWAP_STATE_CONTAINER_SEEN:
        case SWAP_STATE_BLOCKED:
                if (event == SWAP_EVENT_CONTAINER_STARTED)
                        /* A newer instance of the container: the manager follows it. */
                        return T(state, SWAP_ACTION_NONE);
                return next_before_unload(state, event, ctx);
        case SWAP_STATE_UNLOADED_WAITING_DRIVER:
                return next_unloaded_waiting(event, ctx);
        case SWAP_STATE_WOULD_UNLOAD:
                return next_would_unload(event, ctx);
        case SWAP_STATE_LOADING:
                if (event == SWAP_EVENT_LOAD_WOULD)
                        return T(SWAP_STATE_WOULD_SWAP, SWAP_ACTION_NONE);
                if (event == SWAP_EVENT_LOAD_DONE)
                        return T(SWAP_STATE_SWAPPED, SWAP_ACTION_NONE);
                if (event == SWAP_EVENT_LOAD_FAILED || event == SWAP_EVENT_LOAD_NO_BUILD ||
                    event == SWAP_EVENT_STOP_REQUESTED)
                        /* No build: the manager marks the container's build ruled out,
                         * and the restore ends in no-build, never swapped. */
                        return T(SWAP_STATE_RESTORING, SWAP_ACTION_RESTORE);
                return T(state, SWAP_ACTION_NONE);
        case SWAP_STATE_RESTORING:
        case SWAP_STATE_REPAIRING:
                return next_restoring(state, event, ctx);
        default:
                return next_settled(state, event, ctx);
        }
}

bool swap_state_is_unloaded(SwapState s) {
        return s == SWAP_STATE_UNLOADED_WAITING_DRIVER || s == SWAP_STATE_LOADING;
}

bool swap_state_waits_for_ready(SwapState s) {
        return s == SWAP_STATE_CONTAINER_SEEN || s == SWAP_STATE_BLOCKED ||
               s == SWAP_STATE_UNLOADED_WAITING_DRIVER || s == SWAP_STATE_WOULD_UNLOAD;
}
