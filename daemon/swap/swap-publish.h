/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the swap has published and will publish: the metrics file's own
 * data (swap-metrics.c; its refresh is the loop's SWAP_TIMER_METRICS_REFRESH;
 * the status document is written when the loop is next idle:
 * swap-record.c asks the loop). */

/* The metrics file's own data (swap-metrics.c). */
typedef struct SwapMetrics SwapMetrics;

typedef struct SwapPublish {
        SwapMetrics *metrics;          /* NULL until swap_metrics_start() */
} SwapPublish;
