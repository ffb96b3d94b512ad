/* SPDX-License-Identifier: Apache-2.0 */
#include <criterion/criterion.h>

#include "fake-tree.h"
#include "modules/kallsyms-hooks.h"
#include "modules/module-stack.h"
#include "modules/proc-modules.h"
#include "util/strv.h"

static const char kallsyms[] =
        "ffffffff81000000 T _stext\n"
        "ffffffffc0a01230 T nvme_v1_register_nvfs_dma_ops\t[nvme]\n"
        "ffffffffc0a01240 t nvme_v2_register_nvfs_dma_ops\t[nvme]\n"
        "ffffffffc0b01230 T nvme_rdma_v1_register_nvfs_dma_ops\t[nvme_rdma]\n"
        "ffffffffc0c00000 T _register_nvfs_dma_ops\t[bogus]\n"            /* no prefix */
        "ffffffffc0c00010 T nvme_v1_register_nvfs_dma_ops_extra\t[other]\n" /* not a suffix */
        "ffffffff81234567 T kernel_register_nvfs_dma_ops\n"                 /* no [module] */
        "ffffffffc0d00000 T nvme_init_ctrl\t[nvme_core]\n";

Test(kallsyms, finds_gds_hook_modules) {
        _cleanup_strv_free_ char **m = NULL;

        cr_assert_eq(kallsyms_gds_modules_parse(kallsyms, &m), 0);
        cr_assert_eq(strv_length(m), 2);
        cr_assert_str_eq(m[0], "nvme");
        cr_assert_str_eq(m[1], "nvme_rdma");
}

Test(kallsyms, one_line) {
        _cleanup_free_ char *m = NULL;

        cr_assert_eq(kallsyms_line_gds_module("0000000000000000 T nvme_v2_register_nvfs_dma_ops [nvme]", &m), 1);
        cr_assert_str_eq(m, "nvme");
        cr_assert_eq(kallsyms_line_gds_module("0000000000000000 T nvme_v2_register_nvfs_dma_ops", &m), 0);
        cr_assert_eq(kallsyms_line_gds_module("garbage", &m), 0);
        cr_assert_eq(kallsyms_line_gds_module("", &m), 0);
        cr_assert_eq(kallsyms_line_gds_module("0 T x_register_nvfs_dma_ops [", &m), 0);
}

Test(origin, classification_table) {
        static const struct {
                bool loaded;
                const char *taint;
                bool mlx, gds;
                ModuleOrigin want;
        } t[] = {
                { false, NULL, false, false, MODULE_ORIGIN_ABSENT },
                { false, "O", true, true, MODULE_ORIGIN_ABSENT },
                { true, "", false, false, MODULE_ORIGIN_IN_TREE },
                { true, NULL, false, false, MODULE_ORIGIN_IN_TREE },
                { true, "E", false, false, MODULE_ORIGIN_IN_TREE },
                { true, "OE", false, false, MODULE_ORIGIN_OUT_OF_TREE },
                { true, "O", true, false, MODULE_ORIGIN_NVIDIA },
                { true, "OE", false, true, MODULE_ORIGIN_NVIDIA },
                { true, "", true, false, MODULE_ORIGIN_NVIDIA },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++)
                cr_expect_eq(module_origin_classify(t[i].loaded, t[i].taint, t[i].mlx, t[i].gds), t[i].want,
                             "row %zu", i);
        cr_assert_str_eq(module_origin_to_string(MODULE_ORIGIN_OUT_OF_TREE), "out-of-tree");
        cr_assert_eq(module_origin_from_string("nvidia"), MODULE_ORIGIN_NVIDIA);
        cr_assert_eq(module_origin_from_string("x"), _MODULE_ORIGIN_INVALID);
}

Test(proc_modules, parse) {
        ProcModules *m = NULL;
        const ProcModule *core;

        cr_assert_eq(proc_modules_parse("nvme_core 196608 3 nvme,nvme_fabrics, Live 0x0 (OE)\n"
                                        "truncated 12\n"
                                        "nvme 53248 0 - Live 0x0\n", &m), 0);
        cr_assert_eq(m->n_modules, 2);
        core = proc_modules_find(m, "nvme_core");
        cr_assert_not_null(core);
        cr_assert_eq(core->refcnt, 3);
        cr_assert_eq(strv_length(core->users), 2);
        cr_assert_str_eq(core->users[1], "nvme_fabrics");
        cr_assert_eq(strv_length(proc_modules_find(m, "nvme")->users), 0);
        proc_modules_free(m);
}

static void fake_module(const char *name, const char *refcnt, const char *taint, const char *const *holders) {
        char rel[256];

        snprintf(rel, sizeof(rel), "sys/module/%s/initstate", name);
        fake_write(rel, "live\n");
        snprintf(rel, sizeof(rel), "sys/module/%s/refcnt", name);
        fake_writef(rel, "%s\n", refcnt);
        snprintf(rel, sizeof(rel), "sys/module/%s/taint", name);
        fake_writef(rel, "%s\n", taint);
        snprintf(rel, sizeof(rel), "sys/module/%s/holders", name);
        fake_mkdir(rel);
        for (; holders && *holders; holders++) {
                char target[256];

                snprintf(rel, sizeof(rel), "sys/module/%s/holders/%s", name, *holders);
                snprintf(target, sizeof(target), "../../%s", *holders);
                fake_symlink(rel, target);
        }
}

Test(module_stack, read_fake_root, .fini = fake_tree_remove) {
        ModuleStack *s = NULL;
        const ModuleInfo *core, *nvme, *extra, *tcp;

        fake_tree_new();
        fake_write("proc/modules", "nvme 53248 1 - Live 0x0 (OE)\n"
                                   "nvme_core 196608 3 nvme,nvme_fabrics,nvme_extra, Live 0x0 (OE)\n"
                                   "nvme_fabrics 32768 0 - Live 0x0\n"
                                   "nvme_extra 4096 0 - Live 0x0\n"
                                   "mlx_compat 4096 1 nvme, Live 0x0 (OE)\n");
        fake_write("proc/kallsyms", kallsyms);
        fake_module("nvme_core", "3", "OE", (const char *const[]) { "nvme", "nvme_fabrics", "nvme_extra", NULL });
        fake_module("nvme", "1", "OE", NULL);
        fake_module("nvme_fabrics", "0", "", NULL);
        fake_module("nvme_extra", "0", "O", NULL);
        fake_module("mlx_compat", "1", "OE", (const char *const[]) { "nvme", NULL });
        fake_write("sys/module/nvme/srcversion", "ABCDEF\n");

        cr_assert_eq(module_stack_read(&s), 0);
        cr_assert_eq(s->n_modules, 9, "8 stack members and the outside holder nvme_extra");
        core = module_stack_find(s, "nvme_core");
        cr_assert(core->loaded);
        cr_assert_eq(core->refcnt, 3);
        cr_assert_eq(core->n_holders, 3);
        cr_assert_eq(module_info_refs_beyond_holders(core), 0);
        cr_assert_eq(core->origin, MODULE_ORIGIN_OUT_OF_TREE);
        nvme = module_stack_find(s, "nvme");
        cr_assert(nvme->depends_on_mlx_compat);
        cr_assert(nvme->has_gds_hooks);
        cr_assert_eq(nvme->origin, MODULE_ORIGIN_NVIDIA);
        cr_assert_str_eq(nvme->srcversion, "ABCDEF");
        cr_assert_eq(module_info_refs_beyond_holders(nvme), 1);
        cr_assert_eq(module_stack_find(s, "nvme_fabrics")->origin, MODULE_ORIGIN_IN_TREE);
        tcp = module_stack_find(s, "nvme_tcp");
        cr_assert_not(tcp->loaded);
        cr_assert_eq(tcp->origin, MODULE_ORIGIN_ABSENT);
        cr_assert_eq(tcp->refcnt, -1);
        cr_assert_not_null(tcp->holders);
        extra = module_stack_find(s, "nvme_extra");
        cr_assert_not_null(extra);
        cr_assert_eq(extra - s->modules, 8, "outside holders come after the stack members");
        cr_assert(module_stack_any_loaded(s));
        module_stack_free(s);
}

Test(module_stack, nothing_loaded, .fini = fake_tree_remove) {
        ModuleStack *s = NULL;

        fake_tree_new();
        fake_write("proc/modules", "");
        cr_assert_eq(module_stack_read(&s), 0);
        cr_assert_not(module_stack_any_loaded(s));
        module_stack_free(s);
}

Test(module_stack, name_normalize) {
        char n[] = "nvme-core";

        module_name_normalize(n);
        cr_assert_str_eq(n, "nvme_core");
}
