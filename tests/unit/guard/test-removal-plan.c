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

/* The shared modules of the out-of-tree build loaded over the
 * stack (an earlier driver container's own nvme_auth): what the live module
 * says (taint, mlx_compat) and what was recorded at load. */
static void shared_of(ModuleStack *s, size_t i, const char *taint, bool mlx_compat) {
        s->modules[i].role = MODULE_ROLE_SHARED;
        s->modules[i].taint = strdup(taint);
        s->modules[i].depends_on_mlx_compat = mlx_compat;
}

static void stack_free_tainted(ModuleStack *s) {
        for (size_t i = 0; i < s->n_modules; i++)
                free(s->modules[i].taint);
        stack_free(s);
}

Test(removal_plan, shared_module_of_the_build_goes_after_its_holders) {
        ModuleStack *s = stack_of((const char *const[]) { "nvme_core:1:nvme", "nvme:0", "nvme_auth:2:nvme,nvme_core",
                                                          "nvme_keyring:0", NULL });
        RemovalPlan *p = NULL;

        shared_of(s, 2, "OE", true);
        shared_of(s, 3, "OE", true); /* loaded, held by nothing of the stack: not read as shared in life, harmless */
        cr_assert_eq(removal_plan_build(s, &p), 0);
        cr_assert_eq(strv_length(p->blockers), 0, "%s", p->blockers[0] ?: "");
        cr_assert_lt(pos(p->order, "nvme"), pos(p->order, "nvme_auth"));
        cr_assert_lt(pos(p->order, "nvme_core"), pos(p->order, "nvme_auth"));
        cr_assert(strv_contains(p->shared, "nvme_auth"));
        cr_assert_eq(strv_length(p->kept), 0);
        removal_plan_free(p);
        stack_free_tainted(s);
}

Test(removal_plan, the_hosts_shared_module_stays_even_if_recorded) {
        ModuleStack *s = stack_of((const char *const[]) { "nvme_core:1:nvme", "nvme:0", "nvme_auth:1:nvme_core",
                                                          NULL });
        char *recorded[] = { (char *) "nvme_core", (char *) "nvme", (char *) "nvme_auth", NULL };
        RemovalPlan *p = NULL;

        /* The kernel's own build (no taint O): a record that says otherwise
         * is out of date (someone put the in-tree one back): the live module wins. */
        shared_of(s, 2, "", false);
        cr_assert_eq(removal_plan_build_with(s, recorded, &p), 0);
        cr_assert_eq(strv_length(p->order), 2);
        cr_assert_not(strv_contains(p->order, "nvme_auth"));
        cr_assert_eq(strv_length(p->shared), 0);
        cr_assert_eq(strv_length(p->kept), 0, "the host's module is not the build's to keep");
        removal_plan_free(p);
        stack_free_tainted(s);
}

Test(removal_plan, shared_module_of_the_build_held_by_another_stays_and_is_named) {
        ModuleStack *s = stack_of((const char *const[]) { "nvme_core:1:nvme", "nvme:0",
                                                          "nvme_auth:2:nvme_core,nvmet", NULL });
        RemovalPlan *p = NULL;

        shared_of(s, 2, "OE", true);
        cr_assert_eq(removal_plan_build(s, &p), 0);
        cr_assert_eq(strv_length(p->order), 2);
        cr_assert_str_eq(p->order[1], "nvme_core");
        cr_assert_eq(strv_length(p->blockers), 0, "a kept shared module blocked the stack: %s", p->blockers[0] ?: "");
        cr_assert_eq(strv_length(p->kept), 1);
        cr_assert_str_eq(p->kept[0], "nvme_auth: held by nvmet");
        removal_plan_free(p);
        stack_free_tainted(s);
}

Test(removal_plan, shared_module_used_beyond_its_holders_stays_and_is_named) {
        ModuleStack *s = stack_of((const char *const[]) { "nvme_core:1:nvme", "nvme:0", "nvme_keyring:2:nvme_core",
                                                          NULL });
        RemovalPlan *p = NULL;

        shared_of(s, 2, "OE", true);
        cr_assert_eq(removal_plan_build(s, &p), 0);
        cr_assert_not(strv_contains(p->order, "nvme_keyring"));
        cr_assert_eq(strv_length(p->blockers), 0);
        cr_assert_eq(strv_length(p->kept), 1);
        cr_assert_not_null(strstr(p->kept[0], "1 reference(s) beyond its holders"), "%s", p->kept[0]);
        removal_plan_free(p);
        stack_free_tainted(s);
}

/* Out-of-tree but not NVIDIA-shaped (no mlx_compat): the build's only when
 * the record says the load brought it from the container's tree; otherwise
 * it may be the host's own (a DKMS build in updates/) and stays. */
Test(removal_plan, out_of_tree_shared_module_goes_only_when_recorded) {
        ModuleStack *s = stack_of((const char *const[]) { "nvme_core:1:nvme", "nvme:0", "nvme_auth:1:nvme_core",
                                                          NULL });
        char *recorded[] = { (char *) "nvme_auth", NULL };
        RemovalPlan *p = NULL;

        shared_of(s, 2, "O", false);
        cr_assert_eq(removal_plan_build(s, &p), 0);
        cr_assert_not(strv_contains(p->order, "nvme_auth"));
        p = removal_plan_free(p);
        cr_assert_eq(removal_plan_build_with(s, recorded, &p), 0);
        cr_assert_str_eq(p->order[2], "nvme_auth");
        removal_plan_free(p);
        stack_free_tainted(s);
}

/* openibd's mlx_compat is read as a shared module too (every member of
 * NVIDIA's build holds it) but is never the unload's: it holds no
 * mlx_compat itself and no load of ours records it. */
Test(removal_plan, mlx_compat_is_never_taken) {
        ModuleStack *s = stack_of((const char *const[]) { "nvme_core:1:nvme", "nvme:0",
                                                          "mlx_compat:2:nvme,nvme_core", NULL });
        char *recorded[] = { (char *) "nvme_core", (char *) "nvme", NULL };
        RemovalPlan *p = NULL;

        shared_of(s, 2, "OE", false);
        cr_assert_eq(removal_plan_build_with(s, recorded, &p), 0);
        cr_assert_eq(strv_length(p->order), 2);
        cr_assert_not(strv_contains(p->order, "mlx_compat"));
        cr_assert_eq(strv_length(p->kept), 0);
        removal_plan_free(p);
        stack_free_tainted(s);
}
