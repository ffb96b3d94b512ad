/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The swap's state as metrics (publish/metrics.h): what the daemon knows
 * turned into the file's facts, the counters it keeps (read back from the
 * file at start, so a restart does not reset them), the timings of the
 * last swap, and the file written after each chain of transitions (with
 * the status document) and every SWAP_METRICS_REFRESH_USEC besides. */

#include "node/node-ops.h"
#include "swap/swap-loop.h"
#include "swap/swap-machine.h"
#include "swap/swap-publish.h"
#include "swap/swap-snapshot.h"
#include "swap/swap-plan.h"

/* The file's modification time is the only sign of life the exporter can
 * pass on (a file left by a dead or hung daemon is served forever): a
 * rewrite this often lets an alert tell "stale" from "quiet". */
#define SWAP_METRICS_REFRESH_USEC (30ULL * 1000000ULL)

/* Reads the counters back and arms the refresh; before the first
 * transition (the reconcile). Without it every hook below does nothing. */
int swap_metrics_start(SwapPublish *p, const SwapLoop *loop);
/* The refresh is due (SWAP_TIMER_METRICS_REFRESH): writes the file, arms
 * the next one. */
void swap_metrics_refresh_due(SwapPublish *p, const SwapMachine *swap, SwapMode mode, const SwapNodeView *node);
SwapMetrics *swap_metrics_free(SwapMetrics *s);

/* What the step's plan counts (its SWAP_EFFECT_METRICS_* bits: a swap's
 * marks, refusals, restores, swaps; none in observe). */
void swap_metrics_entered(SwapPublish *p, uint32_t effects);
/* What blocks the unload now. */
void swap_metrics_blockers(SwapPublish *p, const NodeBlockers *b);
/* Writes the file; stack (the one read for the status document, with the
 * GDS hooks) may be NULL: read again without the hooks. */
void swap_metrics_publish(SwapPublish *p, const SwapMachine *swap, SwapMode mode, const SwapNodeView *node,
                          const NodeStack *stack);
