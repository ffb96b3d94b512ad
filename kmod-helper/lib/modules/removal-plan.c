/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
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
        strv_free(p->shared);
        strv_free(p->kept);
        free(p);
        return NULL;
}


static bool is_loaded(const ModuleStack *s, const char *name) {
        const ModuleInfo *m = module_stack_find(s, name);

        return m && m->loaded;
}

/* What an unload takes out (RemovalPlan.order's modules, before ordering):
 * the members and what holds them, and the build's shared modules that
 * nothing else keeps (plan_shared()). */
static bool planned(char *const *take, const ModuleInfo *m) {
        return m->loaded && strv_contains(take, m->name);
}

/* Drops s from the NULL-terminated list l (which owns its strings). */
static void take_remove(char **l, const char *s) {
        size_t j = 0;

        for (size_t i = 0; l && l[i]; i++) {
                if (streq(l[i], s))
                        free(l[i]);
                else
                        l[j++] = l[i];
        }
        if (l)
                l[j] = NULL;
}

/* Why the shared module m of the build cannot go with it, or NULL: a holder
 * that is not taken too (nvmet), or references no holder explains. */
static int shared_keeps(const ModuleInfo *m, char *const *take, char **ret_why) {
        unsigned extra = module_info_refs_beyond_holders(m);

        *ret_why = NULL;
        for (size_t h = 0; h < m->n_holders; h++)
                if (!strv_contains(take, m->holders[h]))
                        return asprintf(ret_why, "%s: held by %s", m->name, m->holders[h]) < 0 ? -ENOMEM : 0;
        if (extra > 0)
                return asprintf(ret_why, "%s: %u reference(s) beyond its holders", m->name, extra) < 0 ? -ENOMEM : 0;
        return 0;
}

/* The shared modules of the build (module_shared_of_build) join `take`
 * when every holder is taken too; one that stays is named in `kept`, and
 * so may make another stay (a fixpoint over a handful of modules). */
static int plan_shared(const ModuleStack *s, char *const *recorded, RemovalPlan *p, char ***take) {
        _cleanup_strv_free_ char **shared = strv_new_empty();
        bool changed = true;
        int r;

        if (!shared)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_modules; i++)
                if (module_shared_of_build(&s->modules[i], recorded) &&
                    (strv_extend(&shared, s->modules[i].name) < 0 || strv_extend(take, s->modules[i].name) < 0))
                        return -ENOMEM;
        while (changed) {
                changed = false;
                STRV_FOREACH(n, shared) {
                        _cleanup_free_ char *why = NULL;

                        if (!strv_contains(*take, *n))
                                continue;
                        r = shared_keeps(module_stack_find(s, *n), *take, &why);
                        if (r < 0)
                                return r;
                        if (!why)
                                continue;
                        take_remove(*take, *n);
                        r = strv_push(&p->kept, TAKE_PTR(why));
                        if (r < 0)
                                return r;
                        changed = true;
                }
        }
        STRV_FOREACH(n, shared)
                if (strv_contains(*take, *n) && strv_extend(&p->shared, *n) < 0)
                        return -ENOMEM;
        return 0;
}

static int plan_take(const ModuleStack *s, char *const *recorded, RemovalPlan *p, char ***ret) {
        _cleanup_strv_free_ char **take = strv_new_empty();
        int r;

        if (!take)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_modules; i++)
                if (s->modules[i].loaded && s->modules[i].role != MODULE_ROLE_SHARED &&
                    strv_extend(&take, s->modules[i].name) < 0)
                        return -ENOMEM;
        r = plan_shared(s, recorded, p, &take);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(take);
        return 0;
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
static int order_modules(const ModuleStack *s, char *const *take, char ***order, size_t *ret_left) {
        size_t n_loaded = 0, placed = 0;
        int r;

        for (size_t i = 0; i < s->n_modules; i++)
                n_loaded += planned(take, &s->modules[i]);
        while (placed < n_loaded) {
                bool progress = false;

                for (size_t i = s->n_modules; i-- > 0;) {
                        const ModuleInfo *m = &s->modules[i];

                        if (!planned(take, m) || strv_contains(*order, m->name) || pending_holders(s, m, *order) > 0)
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

static int add_cycle_blocker(const ModuleStack *s, char *const *take, char *const *order, char ***blockers) {
        _cleanup_strv_free_ char **members = strv_new_empty();
        _cleanup_free_ char *list = NULL;
        size_t len = 1;

        if (!members)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_modules; i++)
                if (planned(take, &s->modules[i]) && !strv_contains(order, s->modules[i].name) &&
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

int removal_plan_build_with(const ModuleStack *stack, char *const *recorded, RemovalPlan **ret) {
        _cleanup_(removal_plan_freep) RemovalPlan *p = calloc(1, sizeof(RemovalPlan));
        _cleanup_strv_free_ char **take = NULL;
        size_t left = 0;
        int r;

        if (!stack)
                return -EINVAL;
        if (!p || !(p->order = strv_new_empty()) || !(p->blockers = strv_new_empty()) ||
            !(p->shared = strv_new_empty()) || !(p->kept = strv_new_empty()))
                return -ENOMEM;
        r = plan_take(stack, recorded, p, &take);
        if (r < 0)
                return r;
        r = order_modules(stack, take, &p->order, &left);
        if (r < 0)
                return r;
        for (size_t i = 0; i < stack->n_modules; i++) {
                if (!planned(take, &stack->modules[i]))
                        continue;
                r = add_module_blockers(stack, &stack->modules[i], &p->blockers);
                if (r < 0)
                        return r;
        }
        if (left > 0) {
                r = add_cycle_blocker(stack, take, p->order, &p->blockers);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(p);
        return 0;
}

int removal_plan_build(const ModuleStack *stack, RemovalPlan **ret) {
        return removal_plan_build_with(stack, NULL, ret);
}
