/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>

#include "modules/module-stack.h"
#include "swap/stack-settle.h"
#include "util/macro.h"
#include "util/strv.h"

static const char *const why_names[_STACK_SETTLE_WHY_MAX] = {
        [STACK_SETTLE_WHY_QUIET] = "a module came or went just now",
        [STACK_SETTLE_WHY_NOBODY] = "no driver container at work",
        [STACK_SETTLE_WHY_CALLS] = "the driver container is loading or removing modules",
        [STACK_SETTLE_WHY_IDLE_WINDOW] = "the driver container's module calls may not be over",
        [STACK_SETTLE_WHY_SETTLED] = "the driver container's module work settled",
        [STACK_SETTLE_WHY_TOO_LONG] = "the driver container's module calls went on too long",
        [STACK_SETTLE_WHY_CONFIRM] = "broken once: judged again before any repair",
        [STACK_SETTLE_WHY_CONFIRMED] = "broken twice on the same modules",
};

const char *stack_settle_why_to_string(StackSettleWhy w) {
        return w >= 0 && w < _STACK_SETTLE_WHY_MAX ? why_names[w] : NULL;
}

static StackSettle wait_until(StackSettleWhy why, uint64_t next) {
        return (StackSettle) { .verdict = STACK_SETTLE_WAIT, .why = why, .next = next };
}

static StackSettle judge(StackSettleWhy why) {
        return (StackSettle) { .verdict = STACK_SETTLE_JUDGE, .why = why };
}

void stack_settle_changed(StackSettleState *s, uint64_t now) {
        s->last_change = now;
        s->idle_since = 0; /* a change is work: the idle window starts again */
}

void stack_settle_reset(StackSettleState *s) {
        *s = (StackSettleState) { .last_change = s->last_change, .stack_sig = s->stack_sig, .have_sig = s->have_sig };
}

StackSettle stack_settle_step(StackSettleState *s, const StackSettleSample *x) {
        /* A change the uevents did not tell (lost, or none in a fake world). */
        if (s->have_sig && s->stack_sig != x->stack_sig)
                stack_settle_changed(s, x->now);
        s->stack_sig = x->stack_sig;
        s->have_sig = true;

        if (x->now < s->last_change + STACK_SETTLE_QUIET_USEC)
                return wait_until(STACK_SETTLE_WHY_QUIET, s->last_change + STACK_SETTLE_QUIET_USEC);
        if (!x->container_working) {
                s->waiting_since = s->idle_since = 0;
                return judge(STACK_SETTLE_WHY_NOBODY);
        }
        if (s->waiting_since == 0)
                s->waiting_since = x->now;
        if (x->now >= s->waiting_since + STACK_SETTLE_MAX_USEC)
                return judge(STACK_SETTLE_WHY_TOO_LONG);
        if (x->module_calls > 0) {
                s->idle_since = 0;
                return wait_until(STACK_SETTLE_WHY_CALLS, x->now + STACK_SETTLE_POLL_USEC);
        }
        if (s->idle_since == 0)
                s->idle_since = x->now;
        if (x->now < s->idle_since + STACK_SETTLE_IDLE_USEC)
                return wait_until(STACK_SETTLE_WHY_IDLE_WINDOW, s->idle_since + STACK_SETTLE_IDLE_USEC);
        return judge(STACK_SETTLE_WHY_SETTLED);
}

StackSettle stack_settle_broken(StackSettleState *s, const StackSettleSample *x) {
        if (s->suspect_at == 0 || s->suspect_sig != x->stack_sig) {
                s->suspect_at = x->now;
                s->suspect_sig = x->stack_sig;
                /* The confirmation is a new look: the container's idle
                 * window, too, starts again. */
                s->idle_since = 0;
                return wait_until(STACK_SETTLE_WHY_CONFIRM, x->now + STACK_SETTLE_CONFIRM_USEC);
        }
        if (x->now < s->suspect_at + STACK_SETTLE_CONFIRM_USEC)
                return wait_until(STACK_SETTLE_WHY_CONFIRM, s->suspect_at + STACK_SETTLE_CONFIRM_USEC);
        return judge(STACK_SETTLE_WHY_CONFIRMED);
}

/* FNV-1a over "name=origin;" of each loaded module, in the stack's order
 * (fixed: nvme_stack_modules first). */
uint64_t stack_settle_signature(const NodeStack *s) {
        uint64_t h = 14695981039346656037ULL;

        for (size_t i = 0; s && i < s->n_modules; i++) {
                const NodeModule *m = &s->modules[i];

                if (m->origin == NODE_ORIGIN_ABSENT)
                        continue;
                for (const char *c = m->name; c && *c; c++)
                        h = (h ^ (unsigned char) *c) * 1099511628211ULL;
                h = (h ^ (unsigned char) ('0' + m->origin)) * 1099511628211ULL;
                h = (h ^ ';') * 1099511628211ULL;
        }
        return h;
}

const char *stack_settle_repair_in_use(const NodeStack *s, const ProcModules *pm, unsigned *ret_refs) {
        for (size_t i = 0; s && pm && i < s->n_modules; i++) {
                const NodeModule *m = &s->modules[i];
                const ProcModule *p;
                size_t holders;

                if (m->shared || (m->origin != NODE_ORIGIN_OUT_OF_TREE && m->origin != NODE_ORIGIN_NVIDIA))
                        continue;
                p = proc_modules_find(pm, m->name);
                if (!p)
                        continue;
                holders = strv_length(p->users);
                if (p->refcnt > 0 && (size_t) p->refcnt > holders) {
                        if (ret_refs)
                                *ret_refs = (unsigned) ((size_t) p->refcnt - holders);
                        return m->name;
                }
        }
        if (ret_refs)
                *ret_refs = 0;
        return NULL;
}
