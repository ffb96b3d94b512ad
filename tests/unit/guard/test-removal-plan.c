/* SPDX-License-Identifier: Apache-2.0 */
#include <criterion/criterion.h>
#include <string.h>

#include "modules/removal-plan.h"
#include "util/strv.h"

/* A stack written as "name:refcnt:holder,holder" entries (refcnt -1 = not loaded). */
static ModuleStack *stack_of(const char *const *spec) {
        ModuleStack *s = calloc(1, sizeof(ModuleStack));

        cr_assert_not_null(s);
        s->n_modules = strv_length((char *const *) spec);
        s->modules = calloc(s->n_modules, sizeof(ModuleInfo));
        for (size_t i = 0; i < s->n_modules; i++) {
                ModuleInfo *m = &s->modules[i];
                char name[64], holders[256] = "";
                int refcnt;

                cr_assert(sscanf(spec[i], "%63[^:]:%d:%255s", name, &refcnt, holders) >= 2);
                m->name = strdup(name);
                m->refcnt = refcnt;
                m->loaded = refcnt >= 0;
                m->initstate = m->loaded ? strdup("live") : NULL;
                m->holders = strv_new_empty();
                for (char *save = NULL, *t = strtok_r(holders, ",", &save); t; t = strtok_r(NULL, ",", &save))
                        cr_assert_eq(strv_extend(&m->holders, t), 0);
                m->n_holders = strv_length(m->holders);
        }
        return s;
}

static void stack_free(ModuleStack *s) {
        for (size_t i = 0; i < s->n_modules; i++) {
                free(s->modules[i].name);
                free(s->modules[i].initstate);
                strv_free(s->modules[i].holders);
        }
        free(s->modules);
        free(s);
}

static size_t pos(char **order, const char *name) {
        for (size_t i = 0; order[i]; i++)
                if (strcmp(order[i], name) == 0)
                        return i;
        cr_assert_fail("%s missing from the order", name);
        return 0;
}

Test(removal_plan, holders_first_core_last) {
        ModuleStack *s = stack_of((const char *const[]) {
                "nvme_core:4:nvme,nvme_fabrics,nvme_tcp,nvme_rdma", "nvme:0", "nvme_fabrics:2:nvme_tcp,nvme_rdma",
                "nvme_tcp:0", "nvme_rdma:0", "nvme_fc:-1", NULL });
        RemovalPlan *p = NULL;

        cr_assert_eq(removal_plan_build(s, &p), 0);
        cr_assert_eq(strv_length(p->order), 5, "only loaded modules");
        cr_assert_str_eq(p->order[4], "nvme_core");
        cr_assert_lt(pos(p->order, "nvme_tcp"), pos(p->order, "nvme_fabrics"));
        cr_assert_lt(pos(p->order, "nvme_rdma"), pos(p->order, "nvme_fabrics"));
        cr_assert_lt(pos(p->order, "nvme_fabrics"), pos(p->order, "nvme_core"));
        cr_assert_eq(strv_length(p->blockers), 0);
        removal_plan_free(p);
        stack_free(s);
}

Test(removal_plan, loaded_holder_outside_the_stack_goes_first) {
        ModuleStack *s = stack_of((const char *const[]) { "nvme_core:2:nvme,nvme_extra", "nvme:1:nvme_extra",
                                                          "nvme_extra:0", NULL });
        RemovalPlan *p = NULL;

        cr_assert_eq(removal_plan_build(s, &p), 0);
        cr_assert_eq(strv_length(p->order), 3);
        cr_assert_str_eq(p->order[0], "nvme_extra");
        cr_assert_str_eq(p->order[1], "nvme");
        cr_assert_str_eq(p->order[2], "nvme_core");
        cr_assert_eq(strv_length(p->blockers), 0);
        removal_plan_free(p);
        stack_free(s);
}

Test(removal_plan, unknown_holder_blocks) {
        ModuleStack *s = stack_of((const char *const[]) { "nvme_core:2:nvme,ghost", "nvme:0", NULL });
        RemovalPlan *p = NULL;

        cr_assert_eq(removal_plan_build(s, &p), 0);
        cr_assert_eq(strv_length(p->blockers), 1);
        cr_assert_not_null(strstr(p->blockers[0], "nvme_core: held by ghost"), "%s", p->blockers[0]);
        removal_plan_free(p);
        stack_free(s);
}

Test(removal_plan, extra_references_block_and_name_the_module) {
        ModuleStack *s = stack_of((const char *const[]) { "nvme_core:2:nvme", "nvme:1", NULL });
        RemovalPlan *p = NULL;

        cr_assert_eq(removal_plan_build(s, &p), 0);
        cr_assert_eq(strv_length(p->order), 2);
        cr_assert_eq(strv_length(p->blockers), 2);
        cr_assert_str_eq(p->blockers[0], "nvme_core: 1 reference(s) beyond its holders (a mounted or open namespace?)");
        cr_assert_str_eq(p->blockers[1], "nvme: 1 reference(s) beyond its holders (a mounted or open namespace?)");
        removal_plan_free(p);
        stack_free(s);
}

Test(removal_plan, cycle_is_a_blocker) {
        ModuleStack *s = stack_of((const char *const[]) { "nvme_core:1:nvme", "nvme:1:nvme_core", "nvme_tcp:0", NULL });
        RemovalPlan *p = NULL;

        cr_assert_eq(removal_plan_build(s, &p), 0);
        cr_assert_eq(strv_length(p->order), 1);
        cr_assert_str_eq(p->order[0], "nvme_tcp");
        cr_assert_eq(strv_length(p->blockers), 1);
        cr_assert_not_null(strstr(p->blockers[0], "holder cycle among nvme_core, nvme"), "%s", p->blockers[0]);
        removal_plan_free(p);
        stack_free(s);
}

Test(removal_plan, coming_module_blocks) {
        ModuleStack *s = stack_of((const char *const[]) { "nvme_core:1:nvme", "nvme:0", NULL });
        RemovalPlan *p = NULL;

        free(s->modules[1].initstate);
        s->modules[1].initstate = strdup("coming");
        cr_assert_eq(removal_plan_build(s, &p), 0);
        cr_assert_eq(strv_length(p->blockers), 1);
        cr_assert_not_null(strstr(p->blockers[0], "nvme: still coming"), "%s", p->blockers[0]);
        removal_plan_free(p);
        stack_free(s);
}

Test(removal_plan, nothing_loaded_is_an_empty_plan) {
        ModuleStack *s = stack_of((const char *const[]) { "nvme_core:-1", "nvme:-1", NULL });
        RemovalPlan *p = NULL;

        cr_assert_eq(removal_plan_build(s, &p), 0);
        cr_assert_eq(strv_length(p->order), 0);
        cr_assert_not_null(p->order);
        cr_assert_eq(strv_length(p->blockers), 0);
        removal_plan_free(p);
        stack_free(s);
}

/* A shared module (nvme_auth, also held by nvmet) is not the unload's: the
 * plan takes the members out and leaves it, holders and all. */
Test(removal_plan, shared_module_stays) {
        ModuleStack *s = stack_of((const char *const[]) { "nvme_core:1:nvme", "nvme:0", "nvme_auth:2:nvme_core,nvmet",
                                                          NULL });
        RemovalPlan *p = NULL;

        s->modules[2].role = MODULE_ROLE_SHARED;
        cr_assert_eq(removal_plan_build(s, &p), 0);
        cr_assert_eq(strv_length(p->order), 2);
        cr_assert_str_eq(p->order[0], "nvme");
        cr_assert_str_eq(p->order[1], "nvme_core");
        cr_assert_eq(strv_length(p->blockers), 0, "nvmet, not a module we know, must not block: %s",
                     p->blockers[0] ?: "");
        removal_plan_free(p);
        stack_free(s);
}
