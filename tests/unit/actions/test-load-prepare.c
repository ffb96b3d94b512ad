/* SPDX-License-Identifier: Apache-2.0 */
/* A load prepared before the unload: the rule that tells the prepared tree
 * from the one asked for at the load, and the prepared files a load takes
 * only while they are the very files read. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actions/load-prepare.h"
#include "actions/module-file.h"
#include "actions/tree-files.h"

#include "module-fixture.h"

static void write_ko(const char *rel, const char *modinfo, size_t milen) {
        unsigned char buf[1024];

        fixture_tree_write(rel, buf, fixture_ko(modinfo, milen, buf, sizeof(buf)));
}

static int root_fd = -EBADF;
static LoadOptions opts;

static void setup(void) {
        static const char dep[] = "extra/nvme.ko: extra/nvme-core.ko\nextra/nvme-core.ko:\n";

        fixture_tree_make("sg-prepare");
        fixture_tree_write("lib/modules/6.1/modules.dep", dep, sizeof(dep) - 1);
        write_ko("lib/modules/6.1/extra/nvme.ko", MODINFO("name=nvme\0vermagic=6.1 SMP\0depends=nvme-core\0"));
        write_ko("lib/modules/6.1/extra/nvme-core.ko", MODINFO("name=nvme_core\0vermagic=6.1 SMP\0depends=\0"));
        root_fd = open(fixture_tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cr_assert_geq(root_fd, 0);
        opts = (LoadOptions) { .module_tree = "lib/modules/6.1", .in_root = true, .root_fd = root_fd };
}

static void teardown(void) {
        load_prepared_drop();
        close(root_fd);
        fixture_tree_remove();
}

TestSuite(load_prepare, .init = setup, .fini = teardown);

static ModuleTree *take_tree(void) {
        char *display = NULL;
        ModuleTree *t = NULL;

        cr_assert_eq(load_tree_display(&opts, &display), 0);
        cr_assert_str_eq(display, "(container root)/lib/modules/6.1");
        cr_assert_eq(load_prepared_tree(&opts, display, &t, NULL), 0);
        free(display);
        return t;
}

/* The srcversion check's look at a prepared file: leaves it in place. */
static bool peek_file(const ModuleTree *t, const char *name) {
        const ModuleTreeEntry *e = module_tree_find(t, name);
        size_t size;
        bool r;
        int fd;

        cr_assert_not_null(e, "%s", name);
        cr_assert_eq(module_tree_open_module(t, e, &fd, &size), 0);
        r = load_prepared_peek(t, e, fd) != NULL;
        close(fd);
        return r;
}

/* 1 when the load would take the prepared kind and modinfo of name's file. */
static int take_file(const ModuleTree *t, const char *name, char **ret_name) {
        const ModuleTreeEntry *e = module_tree_find(t, name);
        ModuleMeta meta = {};
        ModuleImageKind kind;
        size_t size;
        int fd, r;

        cr_assert_not_null(e, "%s", name);
        cr_assert_eq(module_tree_open_module(t, e, &fd, &size), 0);
        r = load_prepared_file(t, e, fd, &kind, &meta);
        close(fd);
        if (r > 0) {
                cr_assert_eq(kind, MODULE_IMAGE_ELF);
                if (ret_name)
                        *ret_name = strdup(meta.name);
        }
        module_meta_done(&meta);
        return r;
}

Test(load_prepare, same_rule) {
        LoadPrepKey a = { .in_root = "lib/modules/6.1", .dir = "(container root)/lib/modules/6.1" }, b;

        a.root.st_dev = 5, a.root.st_ino = 7;
        a.files.dep.st_dev = 5, a.files.dep.st_ino = 9, a.files.dep.st_size = 100;
        a.files.dep.st_mtim.tv_sec = 1000;
        b = a;
        cr_assert(load_prepared_same(&a, &b));
        b.root.st_ino = 8; /* another container's root */
        cr_assert_not(load_prepared_same(&a, &b));
        b = a, b.root.st_dev = 6;
        cr_assert_not(load_prepared_same(&a, &b));
        b = a, b.in_root = "lib/modules/6.2";
        cr_assert_not(load_prepared_same(&a, &b));
        b = a, b.dir = "(container root)/lib/modules/6.2";
        cr_assert_not(load_prepared_same(&a, &b));
        b = a, b.files.dep.st_mtim.tv_nsec = 1; /* depmod ran again */
        cr_assert_not(load_prepared_same(&a, &b));
        b = a, b.files.dep.st_size = 101;
        cr_assert_not(load_prepared_same(&a, &b));
        b = a, b.files.dep.st_ctim.tv_sec = 1; /* rewritten, its mtime put back */
        cr_assert_not(load_prepared_same(&a, &b));
        b = a, b.files.dep.st_ino = 10; /* replaced by rename */
        cr_assert_not(load_prepared_same(&a, &b));
        b = a, b.files.builtin.st_ino = 3; /* modules.builtin appeared */
        cr_assert_not(load_prepared_same(&a, &b));
}

Test(load_prepare, unchanged_tree_and_files_are_taken_once) {
        ModuleTree *t;
        char *name = NULL;

        cr_assert_eq(load_prepare(&opts), 0);
        t = take_tree();
        cr_assert(peek_file(t, "nvme"));
        cr_assert(peek_file(t, "nvme"), "a look leaves it for the load");
        cr_assert_eq(take_file(t, "nvme", &name), 1);
        cr_assert_str_eq(name, "nvme");
        free(name);
        cr_assert_eq(take_file(t, "nvme_core", NULL), 1, "a dependency is prepared too");
        cr_assert_eq(take_file(t, "nvme", NULL), 0, "a prepared file is taken once");
        cr_assert_not(peek_file(t, "nvme"));
        load_prepared_drop();
        cr_assert_eq(take_file(t, "nvme_core", NULL), 0);
        module_tree_free(t);
}

Test(load_prepare, a_rewritten_module_is_read_again) {
        ModuleTree *t;

        cr_assert_eq(load_prepare(&opts), 0);
        write_ko("lib/modules/6.1/extra/nvme.ko", MODINFO("name=nvme\0vermagic=6.10 SMP\0depends=nvme-core\0"));
        t = take_tree();
        cr_assert_not(peek_file(t, "nvme"));
        cr_assert_eq(take_file(t, "nvme", NULL), 0, "same inode, other size: not the file read");
        cr_assert_eq(take_file(t, "nvme_core", NULL), 1);
        module_tree_free(t);
}

Test(load_prepare, a_changed_index_is_read_again) {
        static const char dep[] = "extra/nvme.ko: extra/nvme-core.ko\nextra/nvme-core.ko:\nextra/x.ko:\n";
        ModuleTree *t;

        cr_assert_eq(load_prepare(&opts), 0);
        fixture_tree_write("lib/modules/6.1/modules.dep", dep, sizeof(dep) - 1);
        t = take_tree();
        cr_assert_not_null(module_tree_find(t, "x"), "the tree is opened afresh");
        cr_assert_eq(take_file(t, "nvme", NULL), 0, "nothing prepared applies to another tree");
        module_tree_free(t);
}

Test(load_prepare, another_root_is_not_the_prepared_one) {
        ModuleTree *t;
        int other;

        cr_assert_eq(load_prepare(&opts), 0);
        cr_assert_eq(mkdir("/tmp/sg-prepare-other", 0755) == 0 || errno == EEXIST, true);
        other = open("/tmp/sg-prepare-other", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cr_assert_geq(other, 0);
        opts.root_fd = other;
        cr_assert_lt(load_prepared_tree(&opts, "(container root)/lib/modules/6.1", &(ModuleTree *) { NULL }, NULL), 0,
                     "the other root has no tree: opened afresh, and fails");
        opts.root_fd = root_fd;
        close(other);
        rmdir("/tmp/sg-prepare-other");
        t = take_tree();
        cr_assert_eq(take_file(t, "nvme", NULL), 0, "the preparation was dropped");
        module_tree_free(t);
}

Test(load_prepare, nothing_to_prepare_is_an_error_only_for_the_caller) {
        LoadOptions none = {};

        cr_assert_lt(load_prepare(&none), 0);
        opts.module_tree = "lib/modules/6.9";
        cr_assert_lt(load_prepare(&opts), 0, "no such tree");
}
