/* SPDX-License-Identifier: Apache-2.0 */
/* The step's snapshot of the module stack (swap-snapshot.h). */
#include <errno.h>

#include "publish/log.h"
#include "swap/swap-snapshot.h"

void swap_snapshot_forget(SwapStep *step) {
        SwapSnapshot *s = &step->snapshot;

        s->stack = node_stack_free(s->stack);
        *s = (SwapSnapshot) {};
}

/* Still this moment of the node's: inside a dispatch step, or read while
 * the loop handles the same event. */
static bool still_valid(const SwapStep *step, const SwapLoop *loop) {
        uint64_t now;

        if (!step->snapshot.read)
                return false;
        if (step->open)
                return true;
        now = swap_loop_event_number(loop);
        return now != 0 && now == step->snapshot.event;
}

static int remember(SwapStep *step, const SwapLoop *loop, int r, NodeStack *stack, bool hooks,
                    const NodeStack **ret) {
        SwapSnapshot *s = &step->snapshot;

        node_stack_free(s->stack);
        *s = (SwapSnapshot) {
                .stack = r < 0 ? NULL : stack,
                .error = r < 0 ? r : 0,
                .read = true,
                .hooks = r >= 0 && hooks,
                .event = step->open ? 0 : swap_loop_event_number(loop),
        };
        step->reads++;
        *ret = s->stack;
        return r < 0 ? r : 0;
}

int swap_snapshot_stack(SwapStep *step, const NodeOps *ops, const SwapLoop *loop, const NodeStack **ret) {
        NodeStack *stack = NULL;
        int r;

        if (still_valid(step, loop)) {
                *ret = step->snapshot.stack;
                return step->snapshot.stack ? 0 : step->snapshot.error;
        }
        r = ops->read_stack(ops->userdata, &stack);
        return remember(step, loop, r, stack, false, ret);
}

int swap_snapshot_stack_hooks(SwapStep *step, const NodeOps *ops, const SwapLoop *loop, const NodeStack **ret) {
        SwapSnapshot *s = &step->snapshot;
        NodeStack *stack = NULL;
        int r;

        if (still_valid(step, loop) && s->stack) {
                if (!s->hooks && ops->read_hooks) {
                        /* The hooks of the stack this step has: a
                         * /proc/kallsyms read, not a second stack read. */
                        r = ops->read_hooks(ops->userdata, s->stack);
                        step->hooks_reads++;
                        if (r < 0)
                                return r;
                        s->hooks = true;
                }
                /* Without any reader of the hooks (a scripted node's
                 * operations) the stack read is all there is. */
                if (s->hooks || !ops->read_stack_hooks) {
                        *ret = s->stack;
                        return 0;
                }
        } else if (still_valid(step, loop)) {
                *ret = NULL;
                return s->error; /* this step's read failed: it is not tried twice */
        }
        /* Not read yet in this step (or a node that reads the hooks only
         * with the stack): read it with them, once, as the step's. */
        r = node_read_stack_hooks(ops, &stack);
        return remember(step, loop, r, stack, true, ret);
}

int swap_snapshot_recheck(SwapStep *step, const NodeOps *ops, NodeStack **ret) {
        step->rechecks++;
        return ops->read_stack(ops->userdata, ret);
}

void swap_step_begin(SwapStep *step, const SwapLoop *loop, const char *what) {
        log_debug("Step %s begins.", what);
        if (!still_valid(step, loop))
                swap_snapshot_forget(step);
        step->open = true;
        step->saved = false;
        step->reads = step->hooks_reads = step->rechecks = step->writes = 0;
}

void swap_step_end(SwapStep *step, const char *what) {
        log_debug("Step %s: %u stack read(s), %u hooks read(s), %u re-check(s) by its action, %u state file "
                  "write(s).",
                  what, step->reads, step->hooks_reads, step->rechecks, step->writes);
        step->open = false;
        swap_snapshot_forget(step);
}
