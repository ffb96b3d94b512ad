/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the swap has published and will publish: the metrics file's own
 * data (swap-metrics.c) and the status document's write when the loop is
 * next idle (swap-record.c). Only those two files touch it. */

#include <systemd/sd-event.h>

/* The metrics file's own data (swap-metrics.c). */
typedef struct SwapMetrics SwapMetrics;

typedef struct SwapPublish {
        SwapMetrics *metrics;          /* NULL until swap_metrics_start() */
        sd_event_source *later;        /* the status document, written when idle; floating: the
                                          loop owns it */
} SwapPublish;
