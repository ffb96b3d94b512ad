/* SPDX-License-Identifier: Apache-2.0 */
/* The module tree index: modules.dep parsing and module names from paths. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "actions/module-tree.h"
#include "util/strv.h"

static ModuleTree *tree(const char *dir) {
        ModuleTree *t = calloc(1, sizeof(*t));

        t->dir = strdup(dir);
        return t;
}

Test(module_tree, names_from_paths) {
        static const struct {
                const char *path, *name;
        } cases[] = {
                { "kernel/drivers/nvme/host/nvme-core.ko", "nvme_core" },
                { "kernel/drivers/nvme/host/nvme-core.ko.xz", "nvme_core" },
                { "extra/mlnx-nvme/host/nvme-rdma.ko.zst", "nvme_rdma" },
                { "nvme.ko.gz", "nvme" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char *n = NULL;

                cr_assert_eq(module_name_from_path(cases[i].path, &n), 0, "%s", cases[i].path);
                cr_assert_str_eq(n, cases[i].name);
                free(n);
        }
        for (const char *const *bad = (const char *const[]) { "nvme", ".ko", "dir/", "modules.dep", NULL }; *bad; bad++) {
                char *n = NULL;

                cr_assert_eq(module_name_from_path(*bad, &n), -EINVAL, "%s", *bad);
        }
}

Test(module_tree, modules_dep_parse_and_rank) {
        ModuleTree *t = tree("/c/lib/modules/6.1");
        const ModuleTreeEntry *e;

        cr_assert_eq(module_tree_parse_modules_dep(t,
                "kernel/drivers/nvme/host/nvme.ko.xz: kernel/drivers/nvme/host/nvme-core.ko.xz\n"
                "extra/mlnx-nvme/host/nvme.ko: extra/mlnx-nvme/host/nvme-core.ko updates/mlx-compat.ko\n"
                "kernel/drivers/nvme/host/nvme-core.ko.xz: kernel/lib/t10-pi.ko.xz\n"
                "garbage line without colon\n"
                ": nothing\n"
                "/lib/modules/6.1/updates/mlx-compat.ko:\n"
                "/elsewhere/x.ko: y.ko\n"), 0);

        e = module_tree_find(t, "nvme");
        cr_assert_not_null(e);
        cr_assert_str_eq(e->path, "/c/lib/modules/6.1/extra/mlnx-nvme/host/nvme.ko", "extra/ wins over kernel/");
        cr_assert_eq(strv_length(e->depends), 2);
        cr_assert(strv_contains(e->depends, "mlx_compat"));
        e = module_tree_find(t, "mlx_compat");
        cr_assert_not_null(e, "old absolute paths are rebased on the tree");
        cr_assert_str_eq(e->path, "/c/lib/modules/6.1/updates/mlx-compat.ko");
        cr_assert_eq(e->rank, 0);
        cr_assert_null(module_tree_find(t, "x"), "a path outside any module tree is ignored");
        cr_assert_eq(t->n_entries, 3);
        module_tree_free(t);
}

/* Duplicates are settled once for the whole index (a look-up per line
 * would be quadratic): the better rank wins, at equal rank the first line,
 * and each name keeps the place of its first line. */
Test(module_tree, modules_dep_duplicates_settled_once) {
        ModuleTree *t = tree("/c/lib/modules/6.1");

        cr_assert_eq(module_tree_parse_modules_dep(t,
                "kernel/a.ko:\n"
                "kernel/b.ko:\n"
                "kernel/x/a.ko:\n"
                "updates/b.ko:\n"
                "kernel/c.ko:\n"
                "extra/a.ko:\n"
                "extra/y/a.ko:\n"), 0);
        cr_assert_eq(t->n_entries, 3);
        cr_assert_str_eq(t->entries[0].name, "a");
        cr_assert_str_eq(t->entries[0].relpath, "extra/a.ko", "extra/ wins; the first of two extra/ lines");
        cr_assert_str_eq(t->entries[1].name, "b");
        cr_assert_str_eq(t->entries[1].relpath, "updates/b.ko");
        cr_assert_str_eq(t->entries[2].name, "c");
        module_tree_free(t);
}
