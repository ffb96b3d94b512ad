/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the swap asks of the event loop, which only the manager owns
 * (manager-timers.c): its timers, armed and disarmed by name, the loop's
 * clock, the status document's write once the loop is idle, and the
 * record's save (the manager knows the step it belongs to). No file of
 * swap/ creates or holds an event source: a timer that fires is the
 * manager's handler, which calls the swap's function for it and dispatches
 * what that returns. A manager without a loop (the unit tests') has a zero
 * table: arming answers -EOPNOTSUPP and nothing is ever armed. */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum SwapTimer {
        SWAP_TIMER_POD_END,         /* CLOCK_MONOTONIC: an ended container's own cleanup (pod-end.c) */
        SWAP_TIMER_STACK_JUDGE,     /* CLOCK_MONOTONIC: the stack judged once it settles (stack-judge.c) */
        SWAP_TIMER_FABRICS_RETRY,   /* CLOCK_BOOTTIME: the pending connections' next try (swap-fabrics.c) */
        SWAP_TIMER_METRICS_REFRESH, /* CLOCK_BOOTTIME: the metrics file's refresh (swap-metrics.c) */
        _SWAP_TIMER_MAX,
} SwapTimer;

/* How news for the state file is saved (swap-record.h has the one writer;
 * the manager, which owns the step, decides when it runs). */
typedef enum SwapSave {
        SWAP_SAVE_NOW,     /* outside a dispatch step (the start, the stop): now */
        SWAP_SAVE_STEP,    /* the step's one save: now, unless this step saved; an action's
                            * just before it changes the node */
        SWAP_SAVE_CHANGED, /* news for the record: the open step saves it (or the next one,
                            * once this one saved); outside a step, now */
} SwapSave;

typedef struct SwapLoop {
        /* Arms t (again, if armed) to fire at when_usec on its clock: 0 or -errno. */
        int (*arm)(void *userdata, SwapTimer t, uint64_t when_usec);
        /* Whatever t was, it will not fire. */
        void (*disarm)(void *userdata, SwapTimer t);
        bool (*armed)(void *userdata, SwapTimer t);
        /* The loop's time on t's clock: the time of the loop's current
         * wakeup, the same for every handler it runs. */
        int (*now)(void *userdata, SwapTimer t, uint64_t *ret_usec);
        /* The status document is written once the loop has nothing else to
         * do: 0, or -errno when it cannot be (then the caller writes it now). */
        int (*publish_when_idle)(void *userdata);
        /* The number of the event the loop is handling now (each wakeup
         * handles one), 0 when it is handling none: what the step's
         * snapshot is keyed by outside a dispatch (swap-snapshot.h). */
        uint64_t (*event_number)(void *userdata);
        /* The record saved (SwapSave says when), then the status document
         * asked for: what an action or a handler of swap/ noted reaches the
         * state file through the manager, which knows the step. */
        void (*save)(void *userdata, SwapSave how);
        void *userdata;
} SwapLoop;

static inline int swap_loop_arm(const SwapLoop *l, SwapTimer t, uint64_t when_usec) {
        return l->arm ? l->arm(l->userdata, t, when_usec) : -EOPNOTSUPP;
}

static inline void swap_loop_disarm(const SwapLoop *l, SwapTimer t) {
        if (l->disarm)
                l->disarm(l->userdata, t);
}

static inline bool swap_loop_armed(const SwapLoop *l, SwapTimer t) {
        return l->armed && l->armed(l->userdata, t);
}

static inline int swap_loop_now(const SwapLoop *l, SwapTimer t, uint64_t *ret_usec) {
        return l->now ? l->now(l->userdata, t, ret_usec) : -EOPNOTSUPP;
}

static inline int swap_loop_publish_when_idle(const SwapLoop *l) {
        return l->publish_when_idle ? l->publish_when_idle(l->userdata) : -EOPNOTSUPP;
}

static inline uint64_t swap_loop_event_number(const SwapLoop *l) {
        return l->event_number ? l->event_number(l->userdata) : 0;
}

static inline void swap_loop_save(const SwapLoop *l, SwapSave how) {
        if (l->save)
                l->save(l->userdata, how);
}
/* Whether there is a loop at all. */
static inline bool swap_loop_present(const SwapLoop *l) {
        return l->arm != NULL;
}
