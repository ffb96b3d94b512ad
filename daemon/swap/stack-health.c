/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "modules/module-stack.h"
#include "swap/stack-health.h"
#include "util/macro.h"
#include "util/strv.h"

static const char *const break_names[_STACK_BREAK_MAX] = {
        [STACK_WORKING] = "working",
        [STACK_ABSENT] = "stack-absent",
        [STACK_CORE_WITHOUT_NVME] = "core-without-nvme",
        [STACK_MISSING_DEPENDENCY] = "missing-dependency",
        [STACK_MIXED_BUILDS] = "mixed-builds",
};

const char *stack_break_to_string(StackBreak b) {
        return b >= 0 && b < _STACK_BREAK_MAX ? break_names[b] : NULL;
}

static const NodeModule *loaded(const NodeStack *s, const char *name) {
        const NodeModule *m = node_stack_find(s, name);

        return m && m->origin != NODE_ORIGIN_ABSENT ? m : NULL;
}

static bool in_tree(const NodeModule *m) {
        return m->origin == NODE_ORIGIN_IN_TREE;
}

/* What each loaded member cannot live without, from the kernel's own
 * modules.dep (NodeModule.needs). The kernel enforces these for one
 * build; they can only break across builds or in a fake world, so checking
 * costs nothing and catches a half-removed stack. */
static StackHealth missing_dependency(const NodeStack *s) {
        for (size_t i = 0; i < s->n_modules; i++) {
                const NodeModule *m = &s->modules[i];

                if (m->shared || m->origin == NODE_ORIGIN_ABSENT)
                        continue;
                STRV_FOREACH(d, m->needs)
                        if (!loaded(s, *d))
                                return (StackHealth) { STACK_MISSING_DEPENDENCY, m->name, *d };
        }
        return (StackHealth) { .what = STACK_WORKING };
}

StackHealth stack_health_check(const NodeStack *s, char *const *wanted) {
        const NodeModule *first = NULL;
        bool nvme_wanted = !wanted || strv_contains(wanted, "nvme");
        StackHealth h;

        if (!node_stack_any_loaded(s))
                return (StackHealth) { .what = STACK_ABSENT };
        h = missing_dependency(s);
        if (h.what != STACK_WORKING)
                return h;
        if (nvme_wanted && loaded(s, "nvme_core") && !loaded(s, "nvme"))
                return (StackHealth) { STACK_CORE_WITHOUT_NVME, "nvme_core", "nvme" };
        /* The members must be one build; what they share (nvme_auth, which
         * NVIDIA's build may link from the host) may be another. */
        for (const char *const *n = nvme_stack_modules; *n; n++) {
                const NodeModule *m = loaded(s, *n);

                if (!m)
                        continue;
                if (!first)
                        first = m;
                else if (in_tree(first) != in_tree(m))
                        return (StackHealth) { STACK_MIXED_BUILDS, m->name, first->name };
        }
        return (StackHealth) { .what = STACK_WORKING };
}

char *stack_health_describe(StackHealth h) {
        char *s = NULL;
        int r;

        switch (h.what) {
        case STACK_ABSENT:
                r = asprintf(&s, "no NVMe stack module is loaded");
                break;
        case STACK_CORE_WITHOUT_NVME:
                r = asprintf(&s, "nvme_core is loaded without nvme: no PCIe NVMe driver");
                break;
        case STACK_MISSING_DEPENDENCY:
                r = asprintf(&s, "%s is loaded without %s", h.module, h.other);
                break;
        case STACK_MIXED_BUILDS:
                r = asprintf(&s, "%s and %s are different builds (one in-tree, one not)", h.module, h.other);
                break;
        default:
                r = asprintf(&s, "the NVMe stack works");
                break;
        }
        return r < 0 ? NULL : s;
}
