/* SPDX-License-Identifier: Apache-2.0 */
/* The pod's end: see pod-end.h.
 *
 * Why wait at all, and how long. The exit we see (the pidfd of the
 * container's init, its store entry or crio scope going) is not always the
 * end of its cleanup:
 *  - with the host's PID namespace, a `modprobe -r` or `rmmod` the cleanup
 *    started outlives the init until the runtime kills the container's
 *    cgroup;
 *  - the kernel's module uevents for what the cleanup removed reach us
 *    after the exit (and the stack is judged 2 s after the last one,
 *    swap-lifecycle.c's STACK_SETTLE_USEC);
 *  - a cleanup that did finish has left the stack as it wanted it: taking
 *    out a build that is no longer there, or racing its `modprobe` of the
 *    in-tree stack, would be the daemon fighting the container.
 * So the daemon takes the build back only once the stack has been quiet for
 * POD_END_WAIT_USEC (10 s: five times the settle time, room for a loaded
 * node) after the exit, every stack module uevent starting the wait again,
 * and never later than POD_END_WAIT_MAX_USEC (60 s) after the exit: a node
 * without what the admin asked for is not left waiting on a stream of
 * module events that are not the container's. It waits for nothing else:
 * kubelet already waited terminationGracePeriodSeconds before it killed
 * the container. The wait is not persisted: a daemon restarted in it keeps
 * the build (the journal said which container it came from). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "publish/log.h"
#include "publish/report.h"
#include "swap/swap-follow.h"
#include "swap/swap-loop.h"
#include "swap/swap-machine.h"
#include "swap/pod-end.h"
#include "swap/swap-snapshot.h"
#include "swap/swap-record.h"
#include "util/macro.h"

static void forget(PodEnd *p, const SwapLoop *loop) {
        swap_loop_disarm(loop, SWAP_TIMER_POD_END);
        free(p->container_id);
        free(p->pod);
        p->container_id = p->pod = NULL;
        p->restoring = false;
}

static const ReportFields *fields(const PodEnd *p, SwapState state, ReportFields *f) {
        *f = (ReportFields) { .state = swap_state_to_string(state), .container_id = p->container_id, .pod = p->pod };
        return f;
}

/* The container's environment, as decided when it was followed. */
static EnvFlag restore_flag(const SwapFollow *f, const char *id) {
        if (!f->env_reported_for || !streq(f->env_reported_for, id))
                return ENV_FLAG_UNSET;
        return f->env.restore_on_termination;
}

static void report_build_stays(SwapMachine *s, const PodEnd *p, EnvFlag restore) {
        ReportFields f;

        report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_POD_END_BUILD_STAYS, fields(p, s->state, &f),
                     "Driver container %.12s (pod %s) is gone and RESTORE_DRIVER_ON_POD_TERMINATION is %s: NVIDIA's "
                     "NVMe build from it stays loaded (swapped) until the next driver container; "
                     "`nvme-swapguard-kmod restore` puts the in-tree stack back by hand.",
                     p->container_id, p->pod ?: "?", env_flag_to_string(restore));
        swap_record_message(s, "pod ended: RESTORE_DRIVER_ON_POD_TERMINATION=%s, the build stays",
                            env_flag_to_string(restore));
}

static int arm(PodEnd *p, const SwapLoop *loop) {
        int r;

        r = swap_loop_now(loop, SWAP_TIMER_POD_END, &p->exited_usec);
        if (r < 0)
                return r;
        return swap_loop_arm(loop, SWAP_TIMER_POD_END, p->exited_usec + POD_END_WAIT_USEC);
}

void pod_end_container_exited(SwapFollow *f, SwapMachine *s, const SwapLoop *loop) {
        const ContainerIdentity *c = f->container.identity;
        PodEnd *p = &f->pod_end;
        EnvFlag restore;
        int r;

        /* Only the container whose build is loaded: an earlier container's
         * build is the new one's business (swap-lifecycle.c). */
        if (!c || !swap_state_build_loaded(s->state) || !s->record.build_container_id ||
            !streq(s->record.build_container_id, c->id))
                return;
        forget(p, loop);
        p->container_id = strdup(c->id);
        p->pod = c->pod_name ? strdup(c->pod_name) : NULL;
        if (!p->container_id) {
                log_oom();
                return;
        }
        restore = restore_flag(f, c->id);
        if (restore != ENV_FLAG_TRUE) {
                report_build_stays(s, p, restore);
                forget(p, loop);
                return;
        }
        r = arm(p, loop);
        if (r < 0) {
                /* Without the wait we would race its cleanup: keep the build, say so. */
                log_error_errno(r, "Cannot arm the wait for driver container %.12s's own cleanup; its NVMe build "
                                "stays loaded: %m", c->id);
                forget(p, loop);
                return;
        }
        log_info("Driver container %.12s ended with RESTORE_DRIVER_ON_POD_TERMINATION=true: giving its own cleanup "
                 "%llu s of quiet (at most %llu s) to take NVIDIA's NVMe modules out.",
                 c->id, (unsigned long long) (POD_END_WAIT_USEC / 1000000ULL),
                 (unsigned long long) (POD_END_WAIT_MAX_USEC / 1000000ULL));
        swap_record_message(s, "pod ended: waiting for its own cleanup");
}

void pod_end_stack_changed(PodEnd *p, const SwapLoop *loop) {
        uint64_t now, until;

        if (!swap_loop_armed(loop, SWAP_TIMER_POD_END) || swap_loop_now(loop, SWAP_TIMER_POD_END, &now) < 0)
                return;
        until = now + POD_END_WAIT_USEC;
        if (until > p->exited_usec + POD_END_WAIT_MAX_USEC)
                until = p->exited_usec + POD_END_WAIT_MAX_USEC;
        (void) swap_loop_arm(loop, SWAP_TIMER_POD_END, until);
}

SwapEvent pod_end_waited(PodEnd *p, SwapMachine *s, const SwapNodeView *node) {
        const NodeStack *stack = NULL;
        bool replacement;
        ReportFields f;

        swap_loop_disarm(node->loop, SWAP_TIMER_POD_END);
        if (!p->container_id)
                return _SWAP_EVENT_INVALID;
        if (!swap_state_build_loaded(s->state) || swap_snapshot_stack(node->step, node->ops, node->loop, &stack) < 0) {
                /* Its cleanup took the build out and the daemon put the in-tree
                 * stack back on the modules' removal (or broke it: the journal has it). */
                log_info("Driver container %.12s's own cleanup changed the NVMe stack: state %s, nothing more to do.",
                         p->container_id, swap_state_to_string(s->state));
                forget(p, node->loop);
                return _SWAP_EVENT_INVALID;
        }
        replacement = node_stack_replacement_loaded(stack);
        if (!replacement) {
                log_info("Driver container %.12s took NVIDIA's NVMe modules out itself.", p->container_id);
                forget(p, node->loop);
                /* ... and nothing of the stack is left while the state still
                 * says swapped (the removal's uevents not judged yet): the
                 * in-tree stack goes back now, as at the removal. */
                return node_stack_any_loaded(stack) ? _SWAP_EVENT_INVALID : SWAP_EVENT_STACK_GONE;
        }
        p->restoring = true;
        report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_POD_END_TAKE_BACK, fields(p, s->state, &f),
                     "Driver container %.12s (pod %s) ended without taking NVIDIA's NVMe modules out (killed before "
                     "its own cleanup finished, or crashed) and asked for RESTORE_DRIVER_ON_POD_TERMINATION=true: "
                     "nvme-swapguard, which loaded them, takes them out once no namespace is in use and puts the "
                     "in-tree stack back.",
                     p->container_id, p->pod ?: "?");
        swap_record_message(s, "pod ended: taking NVIDIA's build back");
        return SWAP_EVENT_POD_ENDED;
}

void pod_end_context(const PodEnd *p, SwapContext *ctx) {
        ctx->pod_end_restore = p->restoring && !ctx->container_running;
}

void pod_end_restored(PodEnd *p, SwapState state, const SwapLoop *loop) {
        ReportFields f;

        report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_POD_END_RESTORED, fields(p, state, &f),
                     "The in-tree NVMe stack is back after the end of driver container %.12s (pod %s): "
                     "nvme-swapguard took NVIDIA's NVMe build out, which the container had not done, and "
                     "loaded the in-tree stack.",
                     p->container_id, p->pod ?: "?");
        forget(p, loop);
}

void pod_end_blocked(SwapMachine *s) {
        swap_record_message(s, "pod ended: NVIDIA's build goes once the namespaces are unused");
}

void pod_end_given_up(PodEnd *p, const SwapLoop *loop) {
        forget(p, loop);
}

void pod_end_container_followed(PodEnd *p, const SwapLoop *loop) {
        if (!p->container_id)
                return;
        log_info("A driver container runs again: the end of %.12s's pod is its swap's business now.",
                 p->container_id);
        forget(p, loop);
}

bool pod_end_active(const PodEnd *p) {
        return p->restoring;
}

void pod_end_free(PodEnd *p, const SwapLoop *loop) {
        forget(p, loop);
}
