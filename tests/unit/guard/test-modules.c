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
        /* nvme_auth and nvme_keyring are no longer listed members: what the
         * stack shares comes from the graph (mlx_compat, held by nvme). */
        cr_assert_eq(s->n_modules, 8, "6 stack members, the outside holder nvme_extra, the shared mlx_compat");
        cr_assert_eq(module_stack_find(s, "nvme_extra")->role, MODULE_ROLE_HOLDER);
        cr_assert_eq(module_stack_find(s, "mlx_compat")->role, MODULE_ROLE_SHARED);
        cr_assert_eq(module_stack_build_of(s, module_stack_find(s, "mlx_compat")), MODULE_BUILD_CONTAINER);
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
        cr_assert_eq(extra - s->modules, 6, "outside holders come after the stack members");
        cr_assert(module_stack_any_loaded(s));
        module_stack_free(s);
}

/* Linux 6.12's graph (Debian 6.12 modules.dep, upstream 6.7+): nvme_core
 * depends on nvme_auth, nvme_fabrics on nvme_keyring, nvmet on both. Those
 * two are found from the live holders, not from a list; a shared in-tree
 * module under NVIDIA's nvme_core is the host's code, said so. */
Test(module_stack, shared_from_the_graph_612, .fini = fake_tree_remove) {
        ModuleStack *s = NULL;
        const ModuleInfo *auth, *keyring;

        fake_tree_new();
        fake_write("proc/modules", "nvme 53248 0 - Live 0x0 (OE)\n"
                                   "nvme_core 196608 2 nvme,nvme_fabrics, Live 0x0 (OE)\n"
                                   "nvme_fabrics 32768 0 - Live 0x0 (OE)\n"
                                   "nvme_auth 28672 2 nvme_core,nvmet, Live 0x0\n"
                                   "nvme_keyring 20480 2 nvme_fabrics,nvmet, Live 0x0\n"
                                   "nvmet 200704 0 - Live 0x0\n");
        fake_write("proc/kallsyms", kallsyms);
        fake_module("nvme_core", "2", "OE", (const char *const[]) { "nvme", "nvme_fabrics", NULL });
        fake_module("nvme", "0", "OE", NULL);
        fake_module("nvme_fabrics", "0", "OE", NULL);
        fake_module("nvme_auth", "2", "", (const char *const[]) { "nvme_core", "nvmet", NULL });
        fake_module("nvme_keyring", "2", "", (const char *const[]) { "nvme_fabrics", "nvmet", NULL });
        fake_module("nvmet", "0", "", NULL);

        cr_assert_eq(module_stack_read(&s), 0);
        auth = module_stack_find(s, "nvme_auth");
        keyring = module_stack_find(s, "nvme_keyring");
        cr_assert(auth && keyring, "the shared modules are not read");
        cr_assert_eq(auth->role, MODULE_ROLE_SHARED);
        cr_assert_eq(keyring->role, MODULE_ROLE_SHARED);
        cr_assert_eq(module_stack_build_of(s, auth), MODULE_BUILD_SHARED_FROM_HOST);
        cr_assert_eq(module_stack_build_of(s, module_stack_find(s, "nvme_core")), MODULE_BUILD_CONTAINER);
        cr_assert_null(module_stack_find(s, "nvmet"), "nvmet holds only shared modules: not part of the stack");
        cr_assert_str_eq(module_build_to_string(MODULE_BUILD_SHARED_FROM_HOST), "shared-from-host");
        cr_assert_eq(module_build_from_string("container"), MODULE_BUILD_CONTAINER);
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

/* Decisions read the stack without /proc/kallsyms, which the
 * kernel hands out one page per read(). kallsyms is a directory here, so
 * any attempt to read it fails the read (EISDIR): a read that succeeds did
 * not look. Everything a decision uses is still there. */
static void nvidia_stack_with_unreadable_kallsyms(void) {
        fake_tree_new();
        fake_write("proc/modules", "nvme 53248 0 - Live 0x0 (OE)\n"
                                   "nvme_core 196608 1 nvme, Live 0x0 (OE)\n");
        fake_mkdir("proc/kallsyms");
        fake_module("nvme_core", "1", "OE", (const char *const[]) { "nvme", NULL });
        fake_module("nvme", "0", "OE", NULL);
}

Test(module_stack, decide_reads_no_kallsyms, .fini = fake_tree_remove) {
        ModuleStack *s = NULL;
        const ModuleInfo *core;

        nvidia_stack_with_unreadable_kallsyms();
        cr_assert_eq(module_stack_read_with(MODULE_STACK_READ_DECIDE, &s), 0);
        cr_assert_not(s->hooks_read);
        core = module_stack_find(s, "nvme_core");
        cr_assert(core->loaded);
        cr_assert_eq(core->refcnt, 1);
        cr_assert_eq(core->n_holders, 1);
        cr_assert_eq(core->origin, MODULE_ORIGIN_OUT_OF_TREE, "not in-tree: the O taint decides that");
        cr_assert_not(module_stack_find(s, "nvme")->has_gds_hooks, "not looked at");
        module_stack_free(s);
        s = NULL;
        cr_assert_lt(module_stack_read(&s), 0, "the hooks read does look at kallsyms");
}

/* The kernel's own build (no O taint) carries no hooks: asking for them
 * reads no kallsyms while the in-tree stack is loaded. */
Test(module_stack, hooks_not_sought_in_tree, .fini = fake_tree_remove) {
        ModuleStack *s = NULL;

        fake_tree_new();
        fake_write("proc/modules", "nvme 53248 0 - Live 0x0\n"
                                   "nvme_core 196608 1 nvme, Live 0x0\n");
        fake_mkdir("proc/kallsyms");
        fake_module("nvme_core", "1", "", (const char *const[]) { "nvme", NULL });
        fake_module("nvme", "0", "", NULL);
        cr_assert_eq(module_stack_read(&s), 0);
        cr_assert(s->hooks_read);
        cr_assert_eq(module_stack_find(s, "nvme")->origin, MODULE_ORIGIN_IN_TREE);
        cr_assert_not(module_stack_find(s, "nvme")->has_gds_hooks);
        module_stack_free(s);
}
