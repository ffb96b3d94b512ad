/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "modules/removal-plan.h"
#include "util/macro.h"
#include "util/strv.h"

RemovalPlan *removal_plan_free(RemovalPlan *p) {
        if (!p)
                return NULL;
        strv_free(p->order);
        strv_free(p->blockers);
        free(p);
        return NULL;
}


static bool is_loaded(const ModuleStack *s, const char *name) {
        const ModuleInfo *m = module_stack_find(s, name);

        return m && m->loaded;
}

/* What an unload takes out: the members and what holds them. A shared
 * module (nvme_auth, which nvmet may use too) stays: the host's code, and
 * a load replaces it only when the build it loads ships its own. */
static bool planned(const ModuleInfo *m) {
        return m->loaded && m->role != MODULE_ROLE_SHARED;
}

/* Holders of m that are loaded and not yet in the order: what still has to
 * go before m can. */
static size_t pending_holders(const ModuleStack *s, const ModuleInfo *m, char *const *order) {
        size_t n = 0;

        for (size_t h = 0; h < m->n_holders; h++)
                if (is_loaded(s, m->holders[h]) && !strv_contains(order, m->holders[h]))
                        n++;
        return n;
}

/* Kahn's algorithm over at most a few dozen modules. Among the modules that
 * are free to go, the last of the stack's list goes first: modules found as
 * outside holders come after the stack members in ModuleStack, and they
 * are the ones that hold the others. Returns the number of loaded modules
 * left out (members of a cycle). */
static int order_modules(const ModuleStack *s, char ***order, size_t *ret_left) {
        size_t n_loaded = 0, placed = 0;
        int r;

        for (size_t i = 0; i < s->n_modules; i++)
                n_loaded += planned(&s->modules[i]);
        while (placed < n_loaded) {
                bool progress = false;

                for (size_t i = s->n_modules; i-- > 0;) {
                        const ModuleInfo *m = &s->modules[i];

                        if (!planned(m) || strv_contains(*order, m->name) || pending_holders(s, m, *order) > 0)
                                continue;
                        r = strv_extend(order, m->name);
                        if (r < 0)
                                return r;
                        placed++;
                        progress = true;
                        break; /* restart the scan: keeps the tie-break rule stable */
                }
                if (!progress)
                        break;
        }
        *ret_left = n_loaded - placed;
        return 0;
}

static int add_cycle_blocker(const ModuleStack *s, char *const *order, char ***blockers) {
        _cleanup_strv_free_ char **members = strv_new_empty();
        _cleanup_free_ char *list = NULL;
        size_t len = 1;

        if (!members)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_modules; i++)
                if (planned(&s->modules[i]) && !strv_contains(order, s->modules[i].name) &&
                    strv_extend(&members, s->modules[i].name) < 0)
                        return -ENOMEM;
        STRV_FOREACH(m, members)
                len += strlen(*m) + 2;
        list = calloc(1, len);
        if (!list)
                return -ENOMEM;
        STRV_FOREACH(m, members) {
                if (m != members)
                        strcat(list, ", ");
                strcat(list, *m);
        }
        return strv_extendf(blockers, "holder cycle among %s: no order removes them without forcing", list);
}

static int add_module_blockers(const ModuleStack *s, const ModuleInfo *m, char ***blockers) {
        unsigned extra = module_info_refs_beyond_holders(m);
        int r;

        if (extra > 0) {
                r = strv_extendf(blockers, "%s: %u reference(s) beyond its holders (a mounted or open namespace?)",
                                 m->name, extra);
                if (r < 0)
                        return r;
        }
        if (m->initstate && (streq(m->initstate, "coming") || streq(m->initstate, "going"))) {
                r = strv_extendf(blockers, "%s: still %s (%s); retry when it settles", m->name,
                                 m->initstate, streq(m->initstate, "coming") ? "loading" : "unloading");
                if (r < 0)
                        return r;
        }
        for (size_t h = 0; h < m->n_holders; h++)
                if (!is_loaded(s, m->holders[h])) {
                        r = strv_extendf(blockers, "%s: held by %s, which is not a loaded module we know",
                                         m->name, m->holders[h]);
                        if (r < 0)
                                return r;
                }
        return 0;
}

int removal_plan_build(const ModuleStack *stack, RemovalPlan **ret) {
        _cleanup_(removal_plan_freep) RemovalPlan *p = calloc(1, sizeof(RemovalPlan));
        size_t left = 0;
        int r;

        if (!stack)
                return -EINVAL;
        if (!p || !(p->order = strv_new_empty()) || !(p->blockers = strv_new_empty()))
                return -ENOMEM;
        r = order_modules(stack, &p->order, &left);
        if (r < 0)
                return r;
        for (size_t i = 0; stack && i < stack->n_modules; i++) {
                if (!planned(&stack->modules[i]))
                        continue;
                r = add_module_blockers(stack, &stack->modules[i], &p->blockers);
                if (r < 0)
                        return r;
        }
        if (left > 0) {
                r = add_cycle_blocker(stack, p->order, &p->blockers);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(p);
        return 0;
}
