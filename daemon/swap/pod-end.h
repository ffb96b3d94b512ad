/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The pod's end: who loaded it takes it back. The followed
 * driver container ended while its NVMe build is loaded (swapped): killed
 * at the end of its grace period, crashed, OOM-killed. With
 * RESTORE_DRIVER_ON_POD_TERMINATION=true the admin asked for the in-tree
 * stack back at the pod's end, which the container's own cleanup
 * (`mlnxofedctl --alt-mods force-restart`) did not get to do, and for
 * current images it was the daemon that loaded the build. So, after a
 * bounded wait for the container's own cleanup (why bounded, and why this
 * long: pod-end.c), the state table takes the build out through the guard
 * (refused while a namespace is in use: blocked, retried when the use
 * ends) and puts the in-tree stack back: `restored`. With false (or unset,
 * the container's own default) the build stays and the journal says so.
 *
 * The wait is the loop's SWAP_TIMER_POD_END, whose handler (the manager's)
 * calls pod_end_waited() and dispatches what it returns; this file decides
 * and reports. Its data (PodEnd) is the followed container's
 * (swap-follow.h). */

#include <stdbool.h>
#include <stdint.h>

#include "swap/swap-follow.h"
#include "swap/swap-loop.h"
#include "swap/swap-machine.h"
#include "swap/swap-snapshot.h"
#include "swap/swap-state.h"

/* How long the container's own cleanup gets after its exit, and at most. */
#define POD_END_WAIT_USEC (10ULL * 1000000ULL)
#define POD_END_WAIT_MAX_USEC (60ULL * 1000000ULL)

/* The followed container is gone; call before forgetting it. Swapped on its
 * build: says what happens now and, with the restore asked for, arms the
 * wait (SWAP_TIMER_POD_END, whose handler calls pod_end_waited()). */
void pod_end_container_exited(SwapFollow *f, SwapMachine *s, const SwapLoop *loop);
/* The wait is over: SWAP_EVENT_POD_ENDED when the build is still loaded and
 * ours to take back (reported), else _SWAP_EVENT_INVALID (reported why). */
SwapEvent pod_end_waited(PodEnd *p, SwapMachine *s, const SwapNodeView *node);
/* A stack module came or went: the container's cleanup may be at work, the
 * wait starts again (up to its cap). */
void pod_end_stack_changed(PodEnd *p, const SwapLoop *loop);
/* The context's pod_end_restore. */
void pod_end_context(const PodEnd *p, SwapContext *ctx);
/* The step's plan, while an ended pod's restore is completed (swap-plan.h:
 * SWAP_EFFECT_POD_END_*): restored (said; the pod's end is over), blocked
 * (the record says why it waits), given up (failed or stopped: no longer
 * ours). The restore's cause (the pod's end) is the plan's. */
void pod_end_restored(PodEnd *p, SwapState state, const SwapLoop *loop);
void pod_end_blocked(SwapMachine *s);
void pod_end_given_up(PodEnd *p, const SwapLoop *loop);
/* A driver container is followed again: its swap, not the pod's end. */
void pod_end_container_followed(PodEnd *p, const SwapLoop *loop);
/* Whether the pod's end is in progress (no ready file is awaited then). */
bool pod_end_active(const PodEnd *p);
void pod_end_free(PodEnd *p, const SwapLoop *loop);
