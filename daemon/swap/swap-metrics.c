/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "publish/log.h"
#include "publish/metrics.h"
#include "swap/swap-metrics.h"
#include "swap/swap-snapshot.h"
#include "util/string-util.h"

struct SwapMetrics {
        uint64_t start_usec;
        MetricsCounters counters;
        unsigned blockers[_METRICS_BLOCKER_MAX];  /* as of the last check that blocked */
        uint64_t unload_started_usec;             /* CLOCK_REALTIME; 0: no swap of ours under way */
        uint64_t driverless_since_usec;           /* the unload's end; 0: not known */
        int gds_hooks;                            /* as of the last read with the hooks; -1: unknown */
};

/* Our own clock read (not swap-record.c's: the record calls us). */
static uint64_t realtime_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

SwapMetrics *swap_metrics_free(SwapMetrics *s) {
        if (!s)
                return NULL;
        free(s);
        return NULL;
}

void swap_metrics_entered(SwapPublish *p, uint32_t effects) {
        SwapMetrics *s = p->metrics;
        uint64_t now = realtime_usec();

        if (!s)
                return;
        if (effects & SWAP_EFFECT_METRICS_UNLOAD_STARTED)
                s->unload_started_usec = now;
        if (effects & SWAP_EFFECT_METRICS_DRIVERLESS)
                s->driverless_since_usec = now;
        if (effects & SWAP_EFFECT_METRICS_REFUSAL)
                s->counters.refusals++;
        if (effects & SWAP_EFFECT_METRICS_RESTORE)
                s->counters.restores++;
        if (effects & SWAP_EFFECT_METRICS_SWAP) {
                MetricsCounters *c = &s->counters;

                c->swaps++;
                c->last_swap_usec = now;
                /* Both ends seen by this instance, else what it cannot know stays 0. */
                c->last_swap_duration_usec = s->unload_started_usec && now > s->unload_started_usec
                                                     ? now - s->unload_started_usec : 0;
                c->last_swap_driverless_usec = s->driverless_since_usec && now > s->driverless_since_usec
                                                       ? now - s->driverless_since_usec : 0;
        }
        if (effects & SWAP_EFFECT_METRICS_CLEAR)
                s->unload_started_usec = s->driverless_since_usec = 0;
}

void swap_metrics_blockers(SwapPublish *p, const NodeBlockers *b) {
        SwapMetrics *s = p->metrics;

        if (!s)
                return;
        memset(s->blockers, 0, sizeof(s->blockers));
        for (size_t i = 0; b && i < b->n; i++)
                s->blockers[metrics_blocker_kind(b->items[i].kind, b->items[i].other_namespace)]++;
}

static const NodeModule *live_module(const NodeStack *stack) {
        const NodeModule *x = node_stack_find(stack, "nvme");

        if (!x || x->origin == NODE_ORIGIN_ABSENT)
                x = node_stack_find(stack, "nvme_core");
        return x && x->origin != NODE_ORIGIN_ABSENT ? x : NULL;
}

static int gds_hooks_of(const NodeStack *stack) {
        for (size_t i = 0; i < stack->n_modules; i++)
                if (stack->modules[i].origin != NODE_ORIGIN_ABSENT && stack->modules[i].gds_hooks)
                        return 1;
        return 0;
}

static void facts_from_stack(const NodeStack *stack, MetricsFacts *f, MetricsModule *mods) {
        const NodeModule *live;

        if (!stack) {
                f->live_build = "unknown";
                return;
        }
        live = live_module(stack);
        f->live_build = live ? node_origin_to_string(live->origin) : "absent";
        /* The loaded ones: a series per module that is not there says nothing. */
        for (size_t i = 0; i < stack->n_modules; i++) {
                const NodeModule *x = &stack->modules[i];

                if (x->origin == NODE_ORIGIN_ABSENT)
                        continue;
                mods[f->n_modules++] = (MetricsModule) { .name = x->name, .origin = node_origin_to_string(x->origin),
                                            .build = x->build, .srcversion = x->srcversion };
        }
        f->modules = mods;
}

/* The cause the restore was entered with: an asked-for restore is not a
 * failed swap (the alert NvmeSwapguardRestored tells them apart by it). */
static const char *restore_reason(SwapState state, SwapEvent cause) {
        if (!swap_state_of_a_restore(state))
                return NULL;
        if (cause == SWAP_EVENT_POD_ENDED)
                return "pod-ended";
        if (cause < 0)
                return "unknown";
        return "abandoned";
}

static void write_file(const SwapMetrics *s, const SwapMachine *swap, SwapMode mode, const NodeOps *ops,
                       const NodeStack *stack) {
        _cleanup_free_ MetricsModule *mods = NULL;
        _cleanup_free_ char *text = NULL;
        MetricsFacts f = {
                .version = PACKAGE_VERSION,
                .start_usec = s->start_usec,
                .state = swap->state,
                /* A state the daemon started in and never left: known since its start. */
                .state_since_usec = swap->record.since_usec ?: s->start_usec,
                .mode = mode,
                .gds_hooks = s->gds_hooks,
                .gds_match = swap->record.gds_match,
                .restore_reason = restore_reason(swap->state, swap->restore_cause),
                .driverless = -1,
                .counters = s->counters,
        };
        const NodeFabrics *fab = swap->record.fabrics;
        bool driverless;
        int r;

        if (stack && stack->n_modules > 0 && !(mods = calloc(stack->n_modules, sizeof(*mods)))) {
                log_oom();
                return;
        }
        facts_from_stack(stack, &f, mods);
        if (ops->nvme_driverless && ops->nvme_driverless(ops->userdata, &driverless) >= 0)
                f.driverless = driverless;
        if (swap_state_waits_for_usage(swap->state))
                memcpy(f.blockers, s->blockers, sizeof(f.blockers));
        for (size_t i = 0; fab && i < fab->n; i++) {
                MetricsFabricsBucket b = metrics_fabrics_bucket(fab->items[i].outcome);

                if (b >= 0)
                        f.fabrics[b]++;
        }
        r = metrics_to_text(&f, &text);
        if (r >= 0)
                r = metrics_write(text);
        /* No /var/lib at all (a fake root) is not worth a warning every 30 s. */
        if (r == -ENOENT)
                log_debug_errno(r, "No /var/lib: not writing " METRICS_FILE ".");
        else if (r < 0)
                log_warning_errno(r, "Cannot write the metrics file " METRICS_FILE ", ignoring: %m");
}

void swap_metrics_publish(SwapPublish *p, const SwapMachine *swap, SwapMode mode, const SwapNodeView *node,
                          const NodeStack *stack) {
        if (!p->metrics)
                return;
        if (stack)
                p->metrics->gds_hooks = gds_hooks_of(stack);
        else if (!node->ops->read_stack || swap_snapshot_stack(node->step, node->ops, node->loop, &stack) < 0)
                stack = NULL;
        write_file(p->metrics, swap, mode, node->ops, stack);
}

/* The refresh reads the stack without the GDS hooks (no /proc/kallsyms
 * every 30 s): the hooks are as of the last state change. */
static int arm_refresh(const SwapLoop *loop) {
        uint64_t now;
        int r;

        r = swap_loop_now(loop, SWAP_TIMER_METRICS_REFRESH, &now);
        if (r < 0)
                return r;
        return swap_loop_arm(loop, SWAP_TIMER_METRICS_REFRESH, now + SWAP_METRICS_REFRESH_USEC);
}

void swap_metrics_refresh_due(SwapPublish *p, const SwapMachine *swap, SwapMode mode, const SwapNodeView *node) {
        if (!p->metrics)
                return;
        swap_metrics_publish(p, swap, mode, node, NULL);
        (void) arm_refresh(node->loop);
}

/* The counters of the previous instance: a restart (a new binary, a
 * crash, the watchdog) must not look like a reset to rate(). */
static void read_back(SwapMetrics *s) {
        _cleanup_free_ char *text = NULL;
        const char *field = NULL;
        int r;

        r = metrics_read(&text);
        if (r == -ENOENT)
                return;
        if (r >= 0)
                r = metrics_counters_parse(text, &s->counters, &field);
        if (r == -EBADMSG && field)
                log_warning("Ignoring the counters of " METRICS_FILE ": %s does not parse; counting from 0.", field);
        else if (r < 0)
                log_warning_errno(r, "Cannot read the counters back from " METRICS_FILE ", counting from 0: %m");
}

int swap_metrics_start(SwapPublish *p, const SwapLoop *loop) {
        SwapMetrics *s;
        int r;

        if (p->metrics)
                return 0;
        s = calloc(1, sizeof(*s));
        if (!s)
                return log_oom();
        s->start_usec = realtime_usec();
        s->gds_hooks = -1;
        read_back(s);
        p->metrics = s;
        if (!swap_loop_present(loop))
                return 0;
        r = arm_refresh(loop);
        if (r < 0)
                return log_warning_errno(r, "Cannot arm the metrics refresh, the file is written on state "
                                         "changes only: %m");
        return 0;
}
