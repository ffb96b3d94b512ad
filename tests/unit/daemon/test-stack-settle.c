/* SPDX-License-Identifier: Apache-2.0 */
/* When the stack may be judged after a change: someone else's load in
 * progress (an older driver image's insmod of nvme_core, then nvme; an
 * openibd restart) is waited for, a broken judgment is confirmed, and a
 * repair never takes out a module in use. The clock is passed in. */

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "container/container-module-calls.h"
#include "swap/stack-settle.h"
#include "util/strv.h"

#define S STACK_SETTLE_USEC_PER_SEC
#define T0 (1000ULL * S) /* a monotonic clock well past its start */

static StackSettleSample sample(uint64_t now, uint64_t sig, bool working, unsigned calls) {
        return (StackSettleSample) { .now = now, .stack_sig = sig, .container_working = working, .module_calls = calls };
}

Test(stack_settle, nobody_at_work_judges_after_the_quiet_window) {
        StackSettleState s = {};
        StackSettleSample x = sample(T0 + 1 * S, 7, false, 0);
        StackSettle d;

        stack_settle_changed(&s, T0);
        d = stack_settle_step(&s, &x);
        cr_assert_eq(d.verdict, STACK_SETTLE_WAIT);
        cr_assert_eq(d.why, STACK_SETTLE_WHY_QUIET);
        cr_assert_eq(d.next, T0 + STACK_SETTLE_QUIET_USEC);
        x.now = T0 + STACK_SETTLE_QUIET_USEC;
        d = stack_settle_step(&s, &x);
        cr_assert_eq(d.verdict, STACK_SETTLE_JUDGE);
        cr_assert_eq(d.why, STACK_SETTLE_WHY_NOBODY);
}

/* The failure seen under load: the older image's insmod of nvme_core is
 * done, the one of nvme not begun (its shell forks) when the quiet window
 * ends. One sample out of any module call is not the end of the work. */
Test(stack_settle, container_between_two_insmods_is_not_judged) {
        StackSettleState s = {};
        StackSettleSample x;
        StackSettle d;

        stack_settle_changed(&s, T0);                   /* nvme_core came */
        x = sample(T0 + 2 * S, 1, true, 0);             /* the fork between the two insmods */
        d = stack_settle_step(&s, &x);
        cr_assert_eq(d.verdict, STACK_SETTLE_WAIT);
        cr_assert_eq(d.why, STACK_SETTLE_WHY_IDLE_WINDOW);
        cr_assert_eq(d.next, T0 + 2 * S + STACK_SETTLE_IDLE_USEC);
        x = sample(d.next, 1, true, 1);                 /* insmod nvme in finit_module */
        d = stack_settle_step(&s, &x);
        cr_assert_eq(d.verdict, STACK_SETTLE_WAIT);
        cr_assert_eq(d.why, STACK_SETTLE_WHY_CALLS);
        cr_assert_eq(d.next, x.now + STACK_SETTLE_POLL_USEC);
        x = sample(d.next, 2, true, 0);                 /* nvme came, its uevent not read yet */
        d = stack_settle_step(&s, &x);
        cr_assert_eq(d.verdict, STACK_SETTLE_WAIT);
        cr_assert_eq(d.why, STACK_SETTLE_WHY_QUIET, "a changed loaded set is a change");
        x = sample(d.next, 2, true, 0);
        d = stack_settle_step(&s, &x);
        cr_assert_eq(d.why, STACK_SETTLE_WHY_IDLE_WINDOW, "the idle window starts again after a change");
        x = sample(d.next, 2, true, 0);
        d = stack_settle_step(&s, &x);
        cr_assert_eq(d.verdict, STACK_SETTLE_JUDGE);
        cr_assert_eq(d.why, STACK_SETTLE_WHY_SETTLED);
}

Test(stack_settle, a_call_in_the_idle_window_restarts_it) {
        StackSettleState s = {};
        StackSettleSample x;
        StackSettle d;

        stack_settle_changed(&s, T0);
        x = sample(T0 + 2 * S, 1, true, 0);
        (void) stack_settle_step(&s, &x);
        x = sample(T0 + 2 * S + STACK_SETTLE_IDLE_USEC / 2, 1, true, 2);
        cr_assert_eq(stack_settle_step(&s, &x).why, STACK_SETTLE_WHY_CALLS);
        x = sample(T0 + 2 * S + STACK_SETTLE_IDLE_USEC, 1, true, 0);
        d = stack_settle_step(&s, &x);
        cr_assert_eq(d.why, STACK_SETTLE_WHY_IDLE_WINDOW, "idle since this sample, not the first");
        cr_assert_eq(d.next, x.now + STACK_SETTLE_IDLE_USEC);
}

Test(stack_settle, the_ready_file_or_the_container_gone_ends_the_wait) {
        StackSettleState s = {};
        StackSettleSample x;

        stack_settle_changed(&s, T0);
        x = sample(T0 + 2 * S, 1, true, 1);
        cr_assert_eq(stack_settle_step(&s, &x).verdict, STACK_SETTLE_WAIT);
        /* the caller: ready file there, or the container exited: not working */
        x = sample(T0 + 2 * S + STACK_SETTLE_POLL_USEC, 1, false, 0);
        cr_assert_eq(stack_settle_step(&s, &x).verdict, STACK_SETTLE_JUDGE);
}

Test(stack_settle, calls_that_never_end_are_judged_at_the_bound) {
        StackSettleState s = {};
        StackSettleSample x;
        StackSettle d;

        stack_settle_changed(&s, T0);
        x = sample(T0 + 2 * S, 1, true, 1);
        d = stack_settle_step(&s, &x);
        cr_assert_eq(d.why, STACK_SETTLE_WHY_CALLS);
        x.now = T0 + 2 * S + STACK_SETTLE_MAX_USEC - 1;
        cr_assert_eq(stack_settle_step(&s, &x).why, STACK_SETTLE_WHY_CALLS);
        x.now = T0 + 2 * S + STACK_SETTLE_MAX_USEC;
        d = stack_settle_step(&s, &x);
        cr_assert_eq(d.verdict, STACK_SETTLE_JUDGE);
        cr_assert_eq(d.why, STACK_SETTLE_WHY_TOO_LONG);
}

Test(stack_settle, broken_is_confirmed_on_the_same_stack_only) {
        StackSettleState s = {};
        StackSettleSample x = sample(T0, 5, false, 0);
        StackSettle d;

        d = stack_settle_broken(&s, &x);
        cr_assert_eq(d.verdict, STACK_SETTLE_WAIT);
        cr_assert_eq(d.why, STACK_SETTLE_WHY_CONFIRM);
        cr_assert_eq(d.next, T0 + STACK_SETTLE_CONFIRM_USEC);
        x.now = T0 + STACK_SETTLE_CONFIRM_USEC - 1;
        cr_assert_eq(stack_settle_broken(&s, &x).verdict, STACK_SETTLE_WAIT, "too early");
        x.now = T0 + STACK_SETTLE_CONFIRM_USEC;
        d = stack_settle_broken(&s, &x);
        cr_assert_eq(d.verdict, STACK_SETTLE_JUDGE);
        cr_assert_eq(d.why, STACK_SETTLE_WHY_CONFIRMED);

        /* Another loaded set: a new suspicion, not a confirmation. */
        s = (StackSettleState) {};
        x = sample(T0, 5, false, 0);
        (void) stack_settle_broken(&s, &x);
        x = sample(T0 + 10 * S, 6, false, 0);
        d = stack_settle_broken(&s, &x);
        cr_assert_eq(d.verdict, STACK_SETTLE_WAIT);
        cr_assert_eq(d.next, T0 + 10 * S + STACK_SETTLE_CONFIRM_USEC);
}

Test(stack_settle, a_working_stack_forgets_the_suspicion) {
        StackSettleState s = {};
        StackSettleSample x = sample(T0, 5, false, 0);

        (void) stack_settle_broken(&s, &x);
        stack_settle_reset(&s);
        cr_assert_eq(s.suspect_at, 0);
        x.now = T0 + 10 * S;
        cr_assert_eq(stack_settle_broken(&s, &x).verdict, STACK_SETTLE_WAIT);
}

/* ---- the loaded set's signature ---------------------------------------- */

static NodeStack *stack2(NodeOrigin core, NodeOrigin nvme) {
        NodeStack *s = calloc(1, sizeof(*s));

        s->modules = calloc(2, sizeof(NodeModule));
        s->n_modules = 2;
        s->modules[0] = (NodeModule) { .name = strdup("nvme_core"), .origin = core };
        s->modules[1] = (NodeModule) { .name = strdup("nvme"), .origin = nvme };
        return s;
}

Test(stack_settle, signature_tells_loaded_sets_apart) {
        NodeStack *a = stack2(NODE_ORIGIN_NVIDIA, NODE_ORIGIN_ABSENT);
        NodeStack *b = stack2(NODE_ORIGIN_NVIDIA, NODE_ORIGIN_NVIDIA);
        NodeStack *c = stack2(NODE_ORIGIN_IN_TREE, NODE_ORIGIN_IN_TREE);
        NodeStack *a2 = stack2(NODE_ORIGIN_NVIDIA, NODE_ORIGIN_ABSENT);

        cr_assert_neq(stack_settle_signature(a), stack_settle_signature(b));
        cr_assert_neq(stack_settle_signature(b), stack_settle_signature(c), "same names, other build");
        cr_assert_eq(stack_settle_signature(a), stack_settle_signature(a2));
        node_stack_free(a);
        node_stack_free(b);
        node_stack_free(c);
        node_stack_free(a2);
}

/* ---- a repair never takes out a module in use ------------------------- */

Test(stack_settle, repair_in_use_counts_references_beyond_holders) {
        NodeStack *s = stack2(NODE_ORIGIN_NVIDIA, NODE_ORIGIN_ABSENT);
        ProcModules *pm = NULL;
        unsigned refs = 99;

        /* nvme_core held by nothing but one namespace opened through it */
        cr_assert_eq(proc_modules_parse("nvme_core 196608 1 - Live 0x0 (OE)\n", &pm), 0);
        cr_assert_str_eq(stack_settle_repair_in_use(s, pm, &refs), "nvme_core");
        cr_assert_eq(refs, 1);
        proc_modules_free(pm);

        /* its references are its holders': free to go */
        cr_assert_eq(proc_modules_parse("nvme_core 196608 2 nvme_tcp,nvme_fabrics, Live 0x0 (OE)\n", &pm), 0);
        cr_assert_null(stack_settle_repair_in_use(s, pm, &refs));
        cr_assert_eq(refs, 0);
        proc_modules_free(pm);
        node_stack_free(s);

        /* the in-tree stack is not what a repair takes out */
        s = stack2(NODE_ORIGIN_IN_TREE, NODE_ORIGIN_ABSENT);
        cr_assert_eq(proc_modules_parse("nvme_core 196608 3 - Live 0x0\n", &pm), 0);
        cr_assert_null(stack_settle_repair_in_use(s, pm, NULL));
        proc_modules_free(pm);
        node_stack_free(s);
}

/* ---- the container's module calls, as /proc shows them ------------------ */

Test(container_module_calls, syscall_text) {
        char buf[96];

        snprintf(buf, sizeof(buf), "%ld 0x3 0x55d0 0x0 0x0 0x0 0x0 0x7ffd 0x7f12", (long) SYS_finit_module);
        cr_assert(syscall_text_is_module_call(buf));
        snprintf(buf, sizeof(buf), "%ld 0x7f00 0x5c000 0x55d0 0x0 0x0 0x0 0x7ffd 0x7f12", (long) SYS_init_module);
        cr_assert(syscall_text_is_module_call(buf));
        snprintf(buf, sizeof(buf), "%ld 0x55d0 0x800 0x0 0x0 0x0 0x0 0x7ffd 0x7f12", (long) SYS_delete_module);
        cr_assert(syscall_text_is_module_call(buf));
        snprintf(buf, sizeof(buf), "%ld 0x0 0x7ffd 0x1 0x0 0x0 0x0 0x7ffd 0x7f12", (long) SYS_read);
        cr_assert_not(syscall_text_is_module_call(buf), "another call");
        cr_assert_not(syscall_text_is_module_call("running"));
        cr_assert_not(syscall_text_is_module_call("-1 0x7ffd 0x7f12"), "blocked outside any call");
        cr_assert_not(syscall_text_is_module_call(""));
        cr_assert_not(syscall_text_is_module_call(NULL));
        snprintf(buf, sizeof(buf), "%ldx 0x0", (long) SYS_finit_module);
        cr_assert_not(syscall_text_is_module_call(buf), "not a number");
}

Test(container_module_calls, module_tools) {
        cr_assert(comm_is_module_tool("insmod"));
        cr_assert(comm_is_module_tool("modprobe"));
        cr_assert(comm_is_module_tool("rmmod"));
        cr_assert(comm_is_module_tool("openibd"));
        cr_assert_not(comm_is_module_tool("sh"));
        cr_assert_not(comm_is_module_tool("entrypoint"));
        cr_assert_not(comm_is_module_tool("insmodx"));
        cr_assert_not(comm_is_module_tool(""));
        cr_assert_not(comm_is_module_tool(NULL));
}
