/* SPDX-License-Identifier: Apache-2.0 */
/* Broken-stack detection: the shapes a real node shows after a driver
 * container's openibd restart, and the working ones that must not trip it. */

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "swap/stack-health.h"
#include "util/strv.h"

#define A NODE_ORIGIN_ABSENT
#define I NODE_ORIGIN_IN_TREE
#define N NODE_ORIGIN_NVIDIA
#define O NODE_ORIGIN_OUT_OF_TREE

/* The members each member depends on, as the host's modules.dep says it
 * (Debian 6.1.0 and 6.12.118+deb12: nvme-tcp.ko: nvme-fabrics.ko
 * nvme-core.ko ...; the read keeps the members only): what read_stack
 * gives the health check, never a table of the daemon's own. */
static const char *const needs_61[][3] = {
        { "nvme_core", NULL },
        { "nvme", "nvme_core", NULL },
        { "nvme_fabrics", "nvme_core", NULL },
        { "nvme_tcp", "nvme_fabrics", "nvme_core" },
        { "nvme_rdma", "nvme_fabrics", "nvme_core" },
        { "nvme_fc", "nvme_fabrics", "nvme_core" },
};

static bool graph_known = true;

/* core, nvme, fabrics, tcp, rdma, fc, auth (shared, as on 6.12) */
static NodeStack *stack(NodeOrigin core, NodeOrigin nvme, NodeOrigin fabrics, NodeOrigin tcp, NodeOrigin rdma,
                         NodeOrigin fc, NodeOrigin auth) {
        static const char *const names[] = { "nvme_core", "nvme", "nvme_fabrics", "nvme_tcp",
                                             "nvme_rdma", "nvme_fc", "nvme_auth" };
        NodeOrigin o[] = { core, nvme, fabrics, tcp, rdma, fc, auth };
        NodeStack *s = calloc(1, sizeof(*s));

        s->modules = calloc(7, sizeof(NodeModule));
        for (size_t i = 0; i < 7; i++) {
                s->modules[i] = (NodeModule) { .name = strdup(names[i]), .origin = o[i], .shared = i == 6 };
                if (i < 6 && graph_known) {
                        s->modules[i].needs = strv_new_empty();
                        for (size_t k = 1; k < 3 && needs_61[i][k]; k++)
                                cr_assert_eq(strv_extend(&s->modules[i].needs, needs_61[i][k]), 0);
                }
        }
        s->n_modules = 7;
        return s;
}

static StackHealth check(NodeStack *s, char *const *wanted) {
        StackHealth h = stack_health_check(s, wanted);
        /* The names point into s or are static: copy before freeing. */
        static char mod[32], other[32];

        if (h.module)
                h.module = strncpy(mod, h.module, sizeof(mod) - 1);
        if (h.other)
                h.other = strncpy(other, h.other, sizeof(other) - 1);
        node_stack_free(s);
        return h;
}

Test(stack_health, working_stacks) {
        cr_assert_eq(check(stack(I, I, A, A, A, A, A), NULL).what, STACK_WORKING, "in-tree PCIe");
        cr_assert_eq(check(stack(N, N, N, N, N, A, A), NULL).what, STACK_WORKING, "NVIDIA's, tcp + rdma");
        cr_assert_eq(check(stack(N, N, A, A, A, A, I), NULL).what, STACK_WORKING,
                     "NVIDIA's core with the host's nvme_auth is not a mix");
        cr_assert_eq(check(stack(O, O, A, A, A, A, A), NULL).what, STACK_WORKING, "another out-of-tree build");
}

Test(stack_health, absent) {
        StackHealth h = check(stack(A, A, A, A, A, A, A), NULL);

        cr_assert_eq(h.what, STACK_ABSENT);
        cr_assert_not(stack_health_broken(h), "absent is judged by the state machine (stack-gone)");
}

Test(stack_health, openibd_left_nvme_core_alone) {
        StackHealth h = check(stack(N, A, A, A, A, A, A), NULL);

        cr_assert_eq(h.what, STACK_CORE_WITHOUT_NVME);
        cr_assert(stack_health_broken(h));
        cr_assert_str_eq(h.module, "nvme_core");
}

Test(stack_health, fabrics_only_node_without_nvme_is_fine) {
        char *wanted[] = { (char *) "nvme_core", (char *) "nvme_fabrics", (char *) "nvme_tcp", NULL };

        cr_assert_eq(check(stack(I, A, I, I, A, A, A), wanted).what, STACK_WORKING);
        char *with_nvme[] = { (char *) "nvme_core", (char *) "nvme", NULL };
        cr_assert_eq(check(stack(I, A, I, I, A, A, A), with_nvme).what, STACK_CORE_WITHOUT_NVME);
}

Test(stack_health, transport_without_its_core) {
        StackHealth h = check(stack(A, A, N, N, A, A, A), NULL);

        cr_assert_eq(h.what, STACK_MISSING_DEPENDENCY);
        cr_assert_str_eq(h.module, "nvme_fabrics");
        cr_assert_str_eq(h.other, "nvme_core");
        h = check(stack(N, N, A, A, N, A, A), NULL);
        cr_assert_eq(h.what, STACK_MISSING_DEPENDENCY);
        cr_assert_str_eq(h.module, "nvme_rdma");
        cr_assert_str_eq(h.other, "nvme_fabrics");
}

Test(stack_health, mixed_builds) {
        StackHealth h = check(stack(N, I, A, A, A, A, A), NULL);

        cr_assert_eq(h.what, STACK_MIXED_BUILDS, "in-tree nvme over NVIDIA's nvme_core");
        cr_assert_str_eq(h.module, "nvme");
        cr_assert_str_eq(h.other, "nvme_core");
        cr_assert_eq(check(stack(I, I, I, N, A, A, A), NULL).what, STACK_MIXED_BUILDS);
}

Test(stack_health, describe) {
        char *d = stack_health_describe((StackHealth) { STACK_MISSING_DEPENDENCY, "nvme_tcp", "nvme_fabrics" });

        cr_assert_str_eq(d, "nvme_tcp is loaded without nvme_fabrics");
        free(d);
        d = stack_health_describe((StackHealth) { STACK_CORE_WITHOUT_NVME, "nvme_core", "nvme" });
        cr_assert(strstr(d, "without nvme"));
        free(d);
        cr_assert_str_eq(stack_break_to_string(STACK_MIXED_BUILDS), "mixed-builds");
        cr_assert_null(stack_break_to_string(_STACK_BREAK_MAX));
}

/* Without the host's modules.dep nothing says what a member needs: no
 * dependency is claimed missing (core-without-nvme and mixed builds still
 * stand on the live state alone). */
Test(stack_health, unknown_graph_claims_no_missing_dependency) {
        graph_known = false;
        cr_assert_eq(check(stack(A, A, N, N, A, A, A), NULL).what, STACK_WORKING);
        cr_assert_eq(check(stack(N, A, A, A, A, A, A), NULL).what, STACK_CORE_WITHOUT_NVME);
        graph_known = true;
}

/* 6.12: the host's nvme_auth (in-tree, shared) under NVIDIA's members is
 * not a mix; an in-tree member under NVIDIA's nvme_core is. */
Test(stack_health, shared_module_of_another_build_is_not_a_mix) {
        cr_assert_eq(check(stack(N, N, N, N, A, A, I), NULL).what, STACK_WORKING);
        cr_assert_eq(check(stack(I, I, A, A, A, A, N), NULL).what, STACK_WORKING);
        cr_assert_eq(check(stack(N, N, I, A, A, A, I), NULL).what, STACK_MIXED_BUILDS);
}
