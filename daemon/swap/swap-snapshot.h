/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The module stack as one step sees it (swap-step.h): read once, the first
 * time the step asks, and the same value for everything the step decides
 * and tells (the table's context, the entry's reports, the lifecycle's
 * checks, the status document). This file alone reads the stack through
 * the node operations (the house check: --only-caller).
 *
 * A snapshot lives for one step of manager_dispatch() (forgotten after the
 * step's action: an action changes the node) or, outside a dispatch, for
 * the one event the loop is handling (the loop's event number,
 * swap-loop.h): a value read at one wakeup is never reused at the next.
 * News of the stack forgets it even within one event: the udev watch hands
 * over several module uevents per wakeup, and each is judged on a read made
 * after it (manager_stack_changed()). Without a running loop (the unit
 * tests; a stop after the loop's end) nothing is kept outside a step.
 *
 * An action's safety re-checks are not the snapshot: the guard looks at the
 * stack again just before it acts and after (swap_snapshot_recheck(), a
 * fresh read the caller owns, counted apart). */

#include "node/node-ops.h"
#include "swap/swap-loop.h"
#include "swap/swap-step.h"

/* How a file of swap/ reads the node: the step's snapshot, through the
 * node operations, keyed to the loop's event. The manager hands it over
 * (manager_node_view()); a function that reads the stack takes this, not
 * the Manager. */
typedef struct SwapNodeView {
        SwapStep *step;
        const NodeOps *ops;
        const SwapLoop *loop;
} SwapNodeView;

/* The step's stack, borrowed (valid until the step or the event ends; do
 * not free, do not keep): 0, or the read's -errno. Outside both (no loop
 * running: the start's reconcile, the stop, the unit tests) the next read
 * frees it: a function holding it passes it on to what it calls, never
 * lets a callee ask again (swap_fabrics_only_node() takes the judge's). */
int swap_snapshot_stack(SwapStep *step, const NodeOps *ops, const SwapLoop *loop, const NodeStack **ret);
/* The same with the GDS hooks, for what reports them: added to the step's
 * stack from /proc/kallsyms (ops->read_hooks), not a second read of the
 * stack, where the node operations can. */
int swap_snapshot_stack_hooks(SwapStep *step, const NodeOps *ops, const SwapLoop *loop, const NodeStack **ret);

/* An action's safety re-check: a fresh read of the stack, now, owned by the
 * caller (node_stack_free()); never the step's snapshot. */
int swap_snapshot_recheck(SwapStep *step, const NodeOps *ops, NodeStack **ret);

/* The node changed (an action ran, a module uevent came) or the step
 * ended: the next question reads the stack again. */
void swap_snapshot_forget(SwapStep *step);

/* manager_dispatch() brackets each step: a snapshot read in the same
 * event just before (a handler that read the stack, then dispatched) is
 * kept; the counts start at zero; the end says them in a debug line and
 * forgets the snapshot. */
void swap_step_begin(SwapStep *step, const SwapLoop *loop, const char *what);
void swap_step_end(SwapStep *step, const char *what);
