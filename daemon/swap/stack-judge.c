/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "container/container-module-calls.h"
#include "container/container-started.h"
#include "modules/proc-modules.h"
#include "publish/log.h"
#include "publish/report.h"
#include "swap/stack-health.h"
#include "swap/stack-judge.h"
#include "swap/swap-snapshot.h"
#include "swap/swap-context.h"
#include "swap/swap-fabrics.h"
#include "swap/swap-lifecycle.h"
#include "swap/swap-record.h"

static uint64_t now_usec(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * STACK_SETTLE_USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000ULL;
}

static const char *followed_id(const StackJudgeInputs *in) {
        return in->follow->container.identity ? in->follow->container.identity->id : NULL;
}

static void arm_timer(const SwapLoop *loop, uint64_t when) {
        int r;

        r = swap_loop_arm(loop, SWAP_TIMER_STACK_JUDGE, when);
        if (r < 0)
                log_warning_errno(r, "Cannot arm the stack check, a broken stack will be seen late: %m");
}

void stack_judge_changed(SwapStack *s, const SwapLoop *loop) {
        uint64_t now = now_usec();

        stack_settle_changed(&s->settle, now);
        arm_timer(loop, now + STACK_SETTLE_QUIET_USEC);
}

/* The followed container is at work on the node's modules: alive, and its
 * ready file (the end of its openibd and of an older image's own loads)
 * not there yet. */
static bool container_working(const StackJudgeInputs *in, ContainerModuleCalls *calls) {
        int r;

        *calls = (ContainerModuleCalls) {};
        if (!driver_container_followed(&in->follow->container) || in->ready_present ||
            !container_pid_running(in->follow->container.pid))
                return false;
        r = container_module_calls(followed_id(in), calls);
        if (r < 0)
                log_debug_errno(r, "Cannot list the driver container's processes, judging by the quiet window: %m");
        return true;
}

/* Said once per wait, and only when the container's processes are seen in
 * module calls: the daemon's own unload, made while the container
 * compiles, is a change too. */
static void report_wait(SwapStack *st, const StackJudgeInputs *in, const ContainerModuleCalls *c, StackSettle d) {
        if (d.why != STACK_SETTLE_WHY_CALLS) {
                log_debug("The NVMe stack is judged later: %s.", stack_settle_why_to_string(d.why));
                return;
        }
        if (st->settle.reported_wait)
                return;
        st->settle.reported_wait = true;
        log_info("The NVMe stack changed while driver container %.12s works on modules (%s, pid %d): judging it "
                 "once that settles.",
                 followed_id(in) ?: "?", c->first_comm, (int) c->first_pid);
}

/* Broken, confirmed: the repair takes out what is loaded of another build.
 * Something using one of those beyond its holders (a namespace open through
 * the container's half-loaded build) is never pulled from under it. */
static bool repair_in_use(SwapStack *st, SwapMachine *s, const StackJudgeInputs *in, const NodeStack *stack,
                          StackHealth h) {
        _cleanup_(proc_modules_freep) ProcModules *pm = NULL;
        _cleanup_free_ char *what = NULL;
        const char *name;
        unsigned refs = 0;
        char fb[64], fr[64];
        char *extra[] = { fb, fr, NULL };

        if (proc_modules_read(&pm) < 0)
                return false;
        name = stack_settle_repair_in_use(stack, pm, &refs);
        if (!name)
                return false;
        if (st->settle.reported_in_use)
                return true;
        st->settle.reported_in_use = true;
        what = stack_health_describe(h);
        snprintf(fb, sizeof(fb), "SWAPGUARD_BREAK=%s", stack_break_to_string(h.what));
        snprintf(fr, sizeof(fr), "SWAPGUARD_REFS=%u", refs);
        report_event(LOG_WARNING, SWAPGUARD_MESSAGE_STACK_BROKEN_IN_USE,
                     &(ReportFields) { .state = swap_state_to_string(s->state), .module = name,
                                       .container_id = followed_id(in), .extra = extra },
                     "The NVMe stack looks broken (%s), but %s is in use (%u reference%s beyond its holders): "
                     "not repairing it; looking again.",
                     what ?: "?", name, refs, refs == 1 ? "" : "s");
        swap_record_message(s, "stack broken but %s in use: not repaired, waiting", name);
        return true;
}

SwapEvent stack_judge_run(SwapStack *st, SwapMachine *s, const StackJudgeInputs *in) {
        const NodeStack *stack = NULL;
        ContainerModuleCalls calls;
        StackSettleSample x;
        StackSettle d;
        StackHealth h;
        SwapEvent ev = _SWAP_EVENT_INVALID;

        if (swap_state_gave_up(s->state) && st->restore_gave_up) {
                /* The restore that brought us here failed with the kernel's
                 * final answer (FAILED said which module and why); the module
                 * uevents of that very attempt re-armed this timer. Trying the
                 * same restore again on every settle would loop on it. A new
                 * driver container or a restart of the daemon tries again. */
                log_debug("The NVMe stack settled after a failed restore; not restoring again.");
                stack_settle_reset(&st->settle);
                return _SWAP_EVENT_INVALID;
        }
        if (swap_snapshot_stack(in->node.step, in->node.ops, in->node.loop, &stack) < 0)
                return _SWAP_EVENT_INVALID;
        x = (StackSettleSample) {
                .now = now_usec(),
                .stack_sig = stack_settle_signature(stack),
                .container_working = container_working(in, &calls),
                .module_calls = calls.n,
        };
        d = stack_settle_step(&st->settle, &x);
        if (d.verdict == STACK_SETTLE_WAIT) {
                report_wait(st, in, &calls, d);
                arm_timer(in->node.loop, d.next);
                goto finish;
        }
        st->settle.reported_wait = false; /* a wait ended: the next one is said again */
        if (swap_state_build_loaded(s->state) && !node_stack_any_loaded(stack)) {
                /* The state says NVIDIA's build drives the namespaces and
                 * nothing of the stack is loaded, settled: the removal's own
                 * uevents were judged too early or lost. Never a node left
                 * without an NVMe driver: the table puts one back. */
                log_warning("The NVMe stack is gone (nothing of it loaded, settled) while the state is %s: "
                            "handling it as its removal.",
                            swap_state_to_string(s->state));
                stack_settle_reset(&st->settle);
                ev = SWAP_EVENT_STACK_GONE;
                goto finish;
        }
        h = stack_health_check(stack, swap_modules_wanted(in->config, s));
        if (!stack_health_broken(h) ||
            swap_fabrics_only_node(in->node.ops, stack, h)) {
                if (st->settle.suspect_at || st->settle.reported_in_use)
                        log_info("The NVMe stack works now (%s).", stack_settle_why_to_string(d.why));
                stack_settle_reset(&st->settle);
                goto finish;
        }
        d = stack_settle_broken(&st->settle, &x);
        if (d.verdict == STACK_SETTLE_WAIT) {
                _cleanup_free_ char *what = stack_health_describe(h);

                log_info("The NVMe stack looks broken (%s); judging it again before any repair.", what ?: "?");
                arm_timer(in->node.loop, d.next);
                goto finish;
        }
        if (repair_in_use(st, s, in, stack, h)) {
                arm_timer(in->node.loop, x.now + STACK_SETTLE_IN_USE_USEC);
                goto finish;
        }
        lifecycle_report_broken(s, in->follow, h);
        stack_settle_reset(&st->settle);
        ev = SWAP_EVENT_STACK_BROKEN;
finish:
        return ev;
}
