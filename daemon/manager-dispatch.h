/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The manager's one loop of the event path: event -> state table
 * (swap-state.c) -> state entry (the reload block, the ready deadline, the
 * mount watch) and its reports -> the action (swap-actions.c, through
 * NodeOps) -> the event of its outcome, fed back until none comes. The
 * swap's files return events; only this loop (and the tests that script
 * the guard) feeds them to the table. */

#include "manager-data.h"
#include "swap/swap-context.h"

/* Feeds ev, and the outcomes of the actions it leads to, through the table. */
void manager_dispatch(Manager *m, SwapEvent ev);
/* Makes the node match m->swap.state on entering it (also at start, after the
 * reconcile sets the state without an event). */
void manager_apply_state(Manager *m);
/* A stack module came or went (or may have: a reload, a lost uevent): the
 * stack is judged once the change settled (stack-judge.c). */
void manager_stack_changed(Manager *m);
/* The stack judged, its settle's timer fired (stack-judge.c, with the
 * Manager's owners): the event to dispatch, or _SWAP_EVENT_INVALID. */
SwapEvent manager_judge_stack(Manager *m);
/* The record saved as `how` says (swap-loop.h's SwapSave; the writer is
 * swap-record.c), then the status document asked for once the loop is
 * idle. The loop's table hands it to swap/ (swap_loop_save()). */
void manager_save(Manager *m, SwapSave how);
/* The step's context, read from the Manager's owners (swap-context.h). */
int manager_read_context(Manager *m, SwapContext *ret);
