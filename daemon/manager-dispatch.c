/* SPDX-License-Identifier: Apache-2.0 */
/* The dispatch loop and state entry (manager-dispatch.h). */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>

#include "manager-actions.h"
#include "manager-dispatch.h"
#include "manager-labels.h"
#include "manager-sources.h"
#include "modules/module-stack.h"
#include "publish/log.h"
#include "publish/message-ids.h"
#include "swap/pod-end.h"
#include "swap/reload-block.h"
#include "swap/stack-judge.h"
#include "swap/swap-context.h"
#include "swap/swap-fabrics.h"
#include "swap/swap-lifecycle.h"
#include "swap/swap-metrics.h"
#include "swap/swap-note.h"
#include "swap/swap-plan.h"
#include "swap/swap-record.h"
#include "swap/swap-report.h"
#include "swap/swap-snapshot.h"
#include "watch/mount-watch.h"

_Static_assert(SWAP_BLOCKER_PIDS_MAX <= MOUNT_WATCH_PIDS_MAX, "the mount watch follows every blocker's process");

/* More than this many chained transitions for one event is a bug in the table. */
#define MAX_CHAIN 16

/* ---- state entry: the guard file, the deadline, the mount watch -------- */

static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;

        m->sources->deadline = sd_event_source_disable_unref(m->sources->deadline);
        log_warning("No ready file %s within ReadyTimeoutSec=%llu.", m->config->ready_file,
                    (unsigned long long) (m->config->ready_timeout_usec / 1000000ULL));
        if (swap_state_waits_for_ready(m->swap.state) && !swap_state_is_unloaded(m->swap.state)) {
                swap_note_failure(&m->swap,
                                  "The driver container did not become ready within %llu s; nothing was changed.",
                                  (unsigned long long) (m->config->ready_timeout_usec / 1000000ULL));
                swap_report_failure(&m->swap, &m->follow, NULL);
        }
        manager_dispatch(m, SWAP_EVENT_READY_TIMEOUT);
        return 0;
}

static void apply_deadline(Manager *m) {
        uint64_t now = now_realtime_usec(), left;
        int r;

        /* Blocked on the pod's end: no ready file is awaited. */
        if (!swap_state_waits_for_ready(m->swap.state) || m->ready_present || pod_end_active(&m->follow.pod_end)) {
                m->sources->deadline = sd_event_source_disable_unref(m->sources->deadline);
                m->swap.record.ready_deadline_usec = 0;
                return;
        }
        if (m->sources->deadline)
                return;
        if (m->swap.record.ready_deadline_usec == 0)
                m->swap.record.ready_deadline_usec = now + m->config->ready_timeout_usec;
        left = m->swap.record.ready_deadline_usec > now ? m->swap.record.ready_deadline_usec - now : 0;
        /* The one timer of the daemon: a deadline that means something. */
        r = sd_event_add_time_relative(m->event, &m->sources->deadline, CLOCK_BOOTTIME, left, 1000000ULL, on_deadline, m);
        if (r < 0) {
                log_error_errno(r, "Cannot arm the ready deadline: %m");
                return;
        }
        (void) sd_event_source_set_description(m->sources->deadline, "ready-deadline");
}

/* The guard rails of the plan (swap-plan.h): the reload block, the ready
 * deadline, the mount watch, the blockers. */
static void apply_rails(Manager *m, uint32_t effects) {
        int r;

        if (effects & SWAP_EFFECT_RELOAD_BLOCK_SET) {
                if (!reload_block_installed()) {
                        r = reload_block_install(nvme_stack_modules);
                        if (r == -ENOENT && reload_block_installed())
                                log_warning("The reload block " RELOAD_BLOCK_PATH " is set but the gate " RELOAD_GATE_PATH
                                            " is missing (the unit's ExecStartPre= writes it), the host may load the "
                                            "in-tree stack back");
                        else if (r < 0)
                                log_warning_errno(r, "Cannot write the reload block " RELOAD_BLOCK_PATH
                                                  ", the host may load the in-tree stack back: %m");
                }
        } else if (effects & SWAP_EFFECT_RELOAD_BLOCK_REMOVE) {
                r = reload_block_remove();
                if (r < 0)
                        log_warning_errno(r, "Cannot remove the reload block " RELOAD_BLOCK_PATH ": %m");
        }
        apply_deadline(m);
        (void) mount_watch_set_enabled(m->sources->mounts, (effects & SWAP_EFFECT_MOUNT_WATCH_ON) != 0);
        if (effects & SWAP_EFFECT_FORGET_BLOCKERS)
                swap_record_forget_blockers(&m->swap);
}

void manager_apply_state(Manager *m) {
        apply_rails(m, swap_plan_rails(m->swap.state, m->ops->observe));
}

/* The namespaces back after a swap or a restore: compared once, the
 * missing ones noted, then told. */
static void tell_namespaces(Manager *m, const char *what) {
        SwapNodeView node = manager_node_view(m);

        if (swap_note_namespaces(&m->swap, &node))
                swap_report_namespaces(&m->swap, &m->follow, SWAPGUARD_MESSAGE_NAMESPACES_BACK, what);
}

/* Swapped: the step's stack with its GDS hooks (which the report says),
 * told, then noted (the builds, the message), then the namespaces. */
static void tell_swapped(Manager *m, const char *by) {
        const NodeStack *stack = NULL;
        int r;

        r = swap_snapshot_stack_hooks(&m->step, m->ops, &m->loop, &stack);
        if (r < 0) {
                log_warning_errno(r, "Cannot read the module stack for the swap report: %m");
                return;
        }
        swap_report_swapped(&m->swap, &m->follow, stack, by);
        swap_note_swapped(&m->swap, stack, by);
        tell_namespaces(m, "After the swap");
}

/* Restored: told, noted, then the builds of the step's stack (kept as they
 * were when it cannot be read) and the namespaces. A rehearsed restore
 * (observe) said "would restore" instead (observe-report.c). */
static void tell_restored(Manager *m, SwapEvent ev) {
        const NodeStack *stack = NULL;

        if (m->swap.restore_rehearsed)
                return;
        swap_report_restored(&m->swap, &m->follow, ev);
        swap_note_restored(&m->swap, ev);
        if (swap_snapshot_stack(&m->step, m->ops, &m->loop, &stack) >= 0)
                swap_note_builds(&m->swap, stack);
        tell_namespaces(m, "After the restore");
}

/* Entering plan->next from old on ev: every effect of the plan, in this
 * order (the journal's), one call each (a report whose moment changes
 * the record: the report and its note, swap-note.h). */
static void enter(Manager *m, SwapState old, SwapEvent ev, const SwapContext *ctx, const SwapPlan *p) {
        SwapNodeView node = manager_node_view(m);

        if (swap_plan_has(p, SWAP_EFFECT_FORGET_FAILURE)) {
                free(m->swap.failure);
                m->swap.failure = NULL;
        }
        m->swap.state = p->next;
        apply_rails(m, p->effects);
        if (swap_plan_has(p, SWAP_EFFECT_LOG_TRANSITION))
                swap_report_transition(old, p->next, ev);
        if (swap_plan_has(p, SWAP_EFFECT_FABRICS_CONNECT))
                swap_fabrics_connect(&m->fabrics, &m->swap, &m->follow, &m->loop,
                                     "after the driver container's load");
        if (swap_plan_has(p, SWAP_EFFECT_REPORT_CONTAINER_SEEN))
                swap_report_container_seen(&m->swap, &m->follow);
        if (swap_plan_has(p, SWAP_EFFECT_REPORT_SWAPPED))
                tell_swapped(m, p->swapped_by_us ? "loaded by nvme-swapguard from the driver container"
                                                 : "loaded by the driver container");
        if (swap_plan_has(p, SWAP_EFFECT_NOTE_RESTORE))
                swap_record_restore_noted(&m->swap, swap_record_container_id(&m->follow, &m->swap), p->restore_cause);
        if (swap_plan_has(p, SWAP_EFFECT_REPORT_RESTORED))
                tell_restored(m, ev);
        if (swap_plan_has(p, SWAP_EFFECT_REPORT_STOP_FAILED))
                swap_report_stop_restored(&m->swap, swap_record_container_id(&m->follow, &m->swap), false);
        if (swap_plan_has(p, SWAP_EFFECT_REPORT_GAVE_UP)) {
                swap_note_gave_up(&m->swap, ev);
                swap_report_gave_up(&m->swap, &m->follow);
        }
        if (swap_plan_has(p, SWAP_EFFECT_REPORT_STOP_RESTORED)) {
                swap_report_stop_restored(&m->swap, swap_record_container_id(&m->follow, &m->swap), true);
                swap_note_stop_restored(&m->swap);
        }
        if (swap_plan_has(p, SWAP_EFFECT_FORGET_SWAP))
                swap_record_forget_swap(&m->swap);
        swap_metrics_entered(&m->publish, p->effects);
        if (swap_plan_has(p, SWAP_EFFECT_POD_END_RESTORED))
                pod_end_restored(&m->follow.pod_end, m->swap.state, &m->loop);
        if (swap_plan_has(p, SWAP_EFFECT_POD_END_BLOCKED))
                pod_end_blocked(&m->swap);
        if (swap_plan_has(p, SWAP_EFFECT_POD_END_FORGET))
                pod_end_given_up(&m->follow.pod_end, &m->loop);
        if (swap_plan_has(p, SWAP_EFFECT_NOTE_BUILD_CONTAINER))
                lifecycle_note_build_container(&m->swap, &m->follow);
        if (swap_plan_has(p, SWAP_EFFECT_REPORT_GDS))
                lifecycle_report_gds(&m->swap, &m->follow, m->config, &node);
        if (swap_plan_has(p, SWAP_EFFECT_CHECK_BUILD_GONE))
                lifecycle_check_build_gone(&m->swap, ctx);
        if (swap_plan_has(p, SWAP_EFFECT_REPORT_NO_BUILD))
                lifecycle_report_no_build(driver_container_id(&m->follow.container), ev);
        if (swap_plan_has(p, SWAP_EFFECT_REPORT_REPAIRING))
                lifecycle_report_repairing(&m->swap, driver_container_id(&m->follow.container), ev);
}

int manager_read_context(Manager *m, SwapContext *ret) {
        SwapContextInputs in = { .config = m->config, .follow = &m->follow, .swap = &m->swap,
                                 .ready_present = m->ready_present };
        SwapNodeView node = manager_node_view(m);

        return swap_read_context(&in, &node, ret);
}

/* ---- the loop --------------------------------------------------------- */

/* One step (swap/swap-step.h): the snapshot of the node (read once, the
 * first time anything asks), the table's plan, the entry's effects and
 * reports, the action and what came of it noted and told
 * (manager-actions.c), and the state file saved once: by the action just
 * before it changes the node, else here at the step's end. The action's
 * outcome is the next step's event. */
static SwapEvent step(Manager *m, SwapEvent ev, bool *acted, bool *ret_nothing) {
        SwapContext ctx;
        SwapPlan p;
        SwapState old = m->swap.state;

        /* The ready file's event may still be queued behind this one (it
         * was removed during an unload that took seconds): what the table
         * decides on must be true now. */
        if (m->ready_present && !lifecycle_ready_counts(&m->follow, m->config))
                m->ready_present = false;
        *ret_nothing = true;
        if (manager_read_context(m, &ctx) < 0)
                return _SWAP_EVENT_INVALID;
        swap_context_noted(&m->follow, &ctx);
        p = swap_plan(old, ev, &ctx,
                      &(SwapMemory) { .stopping = m->swap.stopping, .observe = m->ops->observe,
                                      .pod_end_restoring = m->follow.pod_end.restoring,
                                      .failure_said = m->swap.failure != NULL });
        if (p.next < 0)
                return _SWAP_EVENT_INVALID; /* the event means nothing here */
        *ret_nothing = false;
        enter(m, old, ev, &ctx, &p);
        swap_status_update(&m->swap, &m->follow);
        log_debug("Event %s in %s: -> %s, action %s.", swap_event_to_string(ev), swap_state_to_string(old),
                  swap_state_to_string(p.next), swap_action_to_string(p.action));
        *acted = *acted || p.action != SWAP_ACTION_NONE;
        return manager_act(m, p.action);
}

/* The status document is for people and `oc swapguard status`, never read
 * back on a restart (the state file is): it is written when the loop is
 * otherwise idle, so once after a whole chain of transitions and after the
 * module calls they ran, not before them (a swap used to rewrite it and
 * read the stack for it at every one of some 15 transitions, each time an
 * atomic write with two fsyncs). Written at once without a loop (tests) and
 * when stopping (the loop dispatches nothing after its exit). */
static void publish_soon(Manager *m) {
        SwapNodeView node = manager_node_view(m);

        if (m->swap.stopping || swap_loop_publish_when_idle(&m->loop) < 0)
                swap_record_publish(&m->swap, &m->publish, m->config->mode, &node);
}

void manager_save(Manager *m, SwapSave how) {
        if (!swap_record_save_due(&m->step, how))
                return;
        swap_record_save(&m->swap, &m->follow, m->config->mode, &m->step);
        publish_soon(m);
}

void manager_dispatch(Manager *m, SwapEvent ev) {
        /* after_save: the last step's action saved just before it changed
         * the node, so what it noted since is the next step's to write. A
         * chain that ends there (at its cap: every outcome of an action is
         * a transition of the table) writes it once after its last step,
         * never drops it. */
        bool acted = false, nothing = false, after_save = false;

        for (unsigned n = 0; ev >= 0 && n < MAX_CHAIN; n++) {
                const char *name = swap_event_to_string(ev);

                swap_step_begin(&m->step, &m->loop, name);
                ev = step(m, ev, &acted, &nothing);
                if (!nothing) {
                        after_save = m->step.saved;
                        manager_save(m, SWAP_SAVE_STEP);
                }
                swap_step_end(&m->step, name);
                if (nothing)
                        break; /* no transition: nothing new to save or tell */
        }
        if (after_save)
                manager_save(m, SWAP_SAVE_NOW);
        if (nothing)
                return;
        swap_status_update(&m->swap, &m->follow);
        manager_labels_update(m);
        /* Blocked: the mount watch also follows the exit of the processes
         * the blockers named. */
        (void) mount_watch_follow(m->sources->mounts, m->swap.blocker_pids, swap_state_waits_for_usage(m->swap.state) ? m->swap.n_blocker_pids : 0);
        /* An action's transient memory (module files, the usage
         * scan, libkmod's and libnvme's trees) is freed by now; give the
         * free pages back before weeks of idling, wherever they sit in the
         * heap (main() keeps large buffers out of it). */
        if (acted)
                (void) malloc_trim(0);
}

/* A stack module came or went: the stack is judged once the change settled
 * (a modprobe or an `openibd restart` in progress, a driver container's own
 * loads: stack-judge.c; the timer's handler is manager-timers.c's), not in
 * the middle of someone's work. */
void manager_stack_changed(Manager *m) {
        /* What was read of the stack before this news is not the stack now.
         * One wakeup of the udev watch carries several module uevents (a
         * container's cleanup removing nvme, then nvme_core): each is
         * judged on a read made after it, never on the one its
         * predecessor made in the same event of the loop. */
        swap_snapshot_forget(&m->step);
        pod_end_stack_changed(&m->follow.pod_end, &m->loop); /* the ended container's cleanup may be at work */
        stack_judge_changed(&m->stack, &m->loop);
}

SwapEvent manager_judge_stack(Manager *m) {
        return stack_judge_run(&m->stack, &m->swap,
                               &(StackJudgeInputs) { .follow = &m->follow,
                                                     .ready_present = m->ready_present,
                                                     .config = m->config,
                                                     .node = manager_node_view(m) });
}
