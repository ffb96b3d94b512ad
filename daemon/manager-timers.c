/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <time.h>

#include "manager-dispatch.h"
#include "manager-sources.h"
#include "manager-timers.h"
#include "swap/pod-end.h"
#include "swap/stack-judge.h"
#include "swap/swap-fabrics.h"
#include "swap/swap-metrics.h"
#include "swap/swap-record.h"

typedef struct TimerKind {
        clockid_t clock;
        uint64_t accuracy_usec; /* 0: sd-event's default */
        const char *description;
        sd_event_time_handler_t handler;
} TimerKind;

/* The bounded wait for an ended container's own cleanup is over (pod-end.c). */
static int on_pod_end(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        SwapNodeView node = manager_node_view(m);
        SwapEvent ev = pod_end_waited(&m->follow.pod_end, &m->swap, &node);

        if (ev >= 0 && m->swap.started)
                manager_dispatch(m, ev);
        return 0;
}

/* A stack module came or went: the stack is judged once the change settled
 * (a modprobe or an `openibd restart` in progress, a driver container's own
 * loads: stack-judge.c), not in the middle of someone's work. */
static int on_stack_judge(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        SwapEvent ev = manager_judge_stack(m);

        if (ev >= 0)
                manager_dispatch(m, ev);
        return 0;
}

static int on_fabrics_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;

        swap_fabrics_retry_due(&m->fabrics, &m->swap, &m->follow, &m->loop);
        return 0;
}

static int on_metrics_refresh(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        SwapNodeView node = manager_node_view(m);

        swap_metrics_refresh_due(&m->publish, &m->swap, m->config->mode, &node);
        return 0;
}

static int on_idle(sd_event_source *s, void *userdata) {
        Manager *m = userdata;
        SwapNodeView node = manager_node_view(m);

        swap_record_publish(&m->swap, &m->publish, m->config->mode, &node);
        return 0;
}

/* CLOCK_BOOTTIME where a suspended node's sleep must count (the NVMe-oF
 * targets' deadlines are wall-clock; the metrics file's age is what the
 * exporter's alert reads); CLOCK_MONOTONIC for waits on the node's own
 * activity. */
static const TimerKind kinds[_SWAP_TIMER_MAX] = {
        [SWAP_TIMER_POD_END]         = { CLOCK_MONOTONIC, 100000ULL, "pod-end-wait", on_pod_end },
        [SWAP_TIMER_STACK_JUDGE]     = { CLOCK_MONOTONIC, 100000ULL, "stack-settle", on_stack_judge },
        [SWAP_TIMER_FABRICS_RETRY]   = { CLOCK_BOOTTIME, 0, "fabrics-retry", on_fabrics_retry },
        [SWAP_TIMER_METRICS_REFRESH] = { CLOCK_BOOTTIME, 1000000ULL, "metrics-refresh", on_metrics_refresh },
};

static sd_event_source **slot(Manager *m, SwapTimer t) {
        if (!m->sources || (int) t < 0 || t >= _SWAP_TIMER_MAX)
                return NULL;
        return &m->sources->timers[t];
}

static int timer_arm(void *userdata, SwapTimer t, uint64_t when_usec) {
        Manager *m = userdata;
        sd_event_source **s = slot(m, t);
        int r;

        if (!s || !m->event)
                return -EOPNOTSUPP;
        if (*s) {
                r = sd_event_source_set_time(*s, when_usec);
                if (r >= 0)
                        r = sd_event_source_set_enabled(*s, SD_EVENT_ONESHOT);
                return r;
        }
        r = sd_event_add_time(m->event, s, kinds[t].clock, when_usec, kinds[t].accuracy_usec, kinds[t].handler, m);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(*s, kinds[t].description);
        return 0;
}

static void timer_disarm(void *userdata, SwapTimer t) {
        sd_event_source **s = slot(userdata, t);

        if (s && *s)
                (void) sd_event_source_set_enabled(*s, SD_EVENT_OFF);
}

static bool timer_armed(void *userdata, SwapTimer t) {
        sd_event_source **s = slot(userdata, t);
        int enabled = SD_EVENT_OFF;

        return s && *s && sd_event_source_get_enabled(*s, &enabled) >= 0 && enabled != SD_EVENT_OFF;
}

static int loop_now(void *userdata, SwapTimer t, uint64_t *ret_usec) {
        Manager *m = userdata;

        if (!m->event || (int) t < 0 || t >= _SWAP_TIMER_MAX)
                return -EOPNOTSUPP;
        return sd_event_now(m->event, kinds[t].clock, ret_usec);
}

/* The status document is for people and `oc swapguard status`, never read
 * back on a restart (the state file is): written once the loop has nothing
 * else to do, so once after a whole chain of transitions and after the
 * module calls they ran (swap-record.c). */
static int publish_when_idle(void *userdata) {
        Manager *m = userdata;
        int r;

        if (!m->sources || !m->event)
                return -EOPNOTSUPP;
        if (!m->sources->idle_publish) {
                r = sd_event_add_defer(m->event, &m->sources->idle_publish, on_idle, m);
                if (r < 0)
                        return r;
                (void) sd_event_source_set_priority(m->sources->idle_publish, SD_EVENT_PRIORITY_IDLE);
                (void) sd_event_source_set_description(m->sources->idle_publish, "status-document");
        }
        return sd_event_source_set_enabled(m->sources->idle_publish, SD_EVENT_ONESHOT);
}

/* sd_event handles one event source per iteration: its number, while it
 * is handling one. */
static uint64_t event_number(void *userdata) {
        Manager *m = userdata;
        uint64_t n = 0;

        if (!m->event || sd_event_get_state(m->event) != SD_EVENT_RUNNING || sd_event_get_iteration(m->event, &n) < 0)
                return 0;
        return n + 1; /* the first iteration is 0: never "none" */
}

static void loop_save(void *userdata, SwapSave how) {
        manager_save(userdata, how);
}

void manager_timers_init(Manager *m) {
        m->loop = (SwapLoop) {
                .arm = timer_arm,
                .disarm = timer_disarm,
                .armed = timer_armed,
                .now = loop_now,
                .publish_when_idle = publish_when_idle,
                .event_number = event_number,
                .save = loop_save,
                .userdata = m,
        };
}

void manager_timers_free(Manager *m) {
        if (!m->sources)
                return;
        for (SwapTimer t = 0; t < _SWAP_TIMER_MAX; t++)
                m->sources->timers[t] = sd_event_source_disable_unref(m->sources->timers[t]);
        m->sources->idle_publish = sd_event_source_disable_unref(m->sources->idle_publish);
}
