/* SPDX-License-Identifier: Apache-2.0 */
/* Module files from an untrusted tree: the ELF .modinfo reader, the path
 * checks, and opening inside the tree (openat2 RESOLVE_IN_ROOT): escapes by
 * symlink or "..", FIFOs, oversized and compressed files. */
#include <criterion/criterion.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actions/module-elf.h"
#include "actions/module-file.h"
#include "actions/module-tree.h"
#include "module-fixture.h"
#include "util/strv.h"

Test(module_elf, reads_name_vermagic_depends) {
        unsigned char buf[1024];
        size_t n = fixture_ko(MODINFO("license=GPL\0depends=nvme-core,mlx_compat\0name=nvme\0"
                                    "vermagic=6.1.0-fake SMP mod_unload \0"), buf, sizeof(buf));
        ModuleMeta m = {};

        cr_assert_eq(module_image_kind(buf, n), MODULE_IMAGE_ELF);
        cr_assert_eq(module_meta_parse(buf, n, &m), 0);
        cr_assert_str_eq(m.name, "nvme");
        cr_assert_str_eq(m.vermagic, "6.1.0-fake");
        cr_assert_eq(strv_length(m.depends), 2);
        cr_assert_str_eq(m.depends[0], "nvme_core", "'-' is spelled '_'");
        module_meta_done(&m);
}

Test(module_elf, refuses_bad_names_and_broken_images) {
        unsigned char buf[1024];
        ModuleMeta m = {};
        size_t n;

        n = fixture_ko(MODINFO("vermagic=6.1 \0"), buf, sizeof(buf));
        cr_assert_eq(module_meta_parse(buf, n, &m), -EBADMSG, "no name=");
        n = fixture_ko(MODINFO("name=../../evil\0"), buf, sizeof(buf));
        cr_assert_eq(module_meta_parse(buf, n, &m), -EBADMSG, "a name with '/' and '.'");
        n = fixture_ko(MODINFO("name=nv\nme\0"), buf, sizeof(buf));
        cr_assert_eq(module_meta_parse(buf, n, &m), -EBADMSG, "a control character");
        n = fixture_ko(MODINFO("name=nvme\0depends=a,b/c\0"), buf, sizeof(buf));
        cr_assert_eq(module_meta_parse(buf, n, &m), -EBADMSG, "a dependency that is no module name");
        n = fixture_ko(MODINFO("name=nvme"), buf, sizeof(buf));
        cr_assert_eq(module_meta_parse(buf, n, &m), 0, "an unterminated last string is bounded by the section");
        cr_assert_str_eq(m.name, "nvme");
        cr_assert_null(m.vermagic);
        module_meta_done(&m);

        /* Every truncation of a valid image is refused, never read past. */
        n = fixture_ko(MODINFO("name=nvme\0vermagic=6.1 \0"), buf, sizeof(buf));
        for (size_t k = 0; k < n; k++) {
                unsigned char *copy = malloc(k ? k : 1);

                memcpy(copy, buf, k);
                cr_assert_eq(module_meta_parse(copy, k, &m), -ENOEXEC, "truncated at %zu", k);
                free(copy);
        }
        /* A section offset pointing past the end. */
        ((Elf64_Ehdr *) buf)->e_shoff = 1u << 30;
        cr_assert_eq(module_meta_parse(buf, n, &m), -ENOEXEC);
}

Test(module_elf, image_kinds) {
        cr_assert_eq(module_image_kind("\3757zXZ\0rest", 10), MODULE_IMAGE_XZ);
        cr_assert_eq(module_image_kind("\050\265\057\375rest", 8), MODULE_IMAGE_ZSTD);
        cr_assert_eq(module_image_kind("\037\213x", 3), MODULE_IMAGE_GZIP);
        cr_assert_eq(module_image_kind("\177EL", 3), MODULE_IMAGE_UNKNOWN, "too short for the magic");
        cr_assert(module_image_kind_is_compressed(MODULE_IMAGE_ZSTD));
        cr_assert_not(module_image_kind_is_compressed(MODULE_IMAGE_ELF));
}

Test(module_file, relpaths) {
        for (const char *const *ok = (const char *const[]) { "nvme.ko", "extra/mlnx-nvme/host/nvme.ko", "a/.b/c", NULL };
             *ok; ok++)
                cr_assert(module_relpath_valid(*ok), "%s", *ok);
        for (const char *const *bad = (const char *const[]) { "", "/abs/nvme.ko", "extra/../../x/nvme.ko", "..",
                                                               "a//b", "a/./b", "a/", "./a", "a/..", NULL };
             *bad; bad++)
                cr_assert_not(module_relpath_valid(*bad), "%s", *bad);
}

/* ---- opening inside a tree ---------------------------------------------- */

static void mk(void) {
        fixture_tree_make("sg-modfile");
}

static void rm(void) {
        fixture_tree_remove();
}

TestSuite(module_file, .init = mk, .fini = rm);

Test(module_file, stays_inside_the_tree) {
        char p[256], outside[256];
        int root, fd = -1;
        size_t size;

        fixture_tree_write("tree/extra/nvme.ko", "x", 1);
        fixture_tree_write("secret.ko", "secret", 6);
        snprintf(outside, sizeof(outside), "%s/secret.ko", fixture_tree);
        snprintf(p, sizeof(p), "%s/tree/abs.ko", fixture_tree);
        cr_assert_eq(symlink(outside, p), 0);          /* absolute: the host's path */
        snprintf(p, sizeof(p), "%s/tree/up.ko", fixture_tree);
        cr_assert_eq(symlink("../secret.ko", p), 0);   /* relative, up and out */
        snprintf(p, sizeof(p), "%s/tree/self.ko", fixture_tree);
        cr_assert_eq(symlink("/proc/self/exe", p), 0); /* a magic link */
        snprintf(p, sizeof(p), "%s/tree/fifo.ko", fixture_tree);
        cr_assert_eq(mkfifo(p, 0600), 0);

        snprintf(p, sizeof(p), "%s/tree", fixture_tree);
        root = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cr_assert_geq(root, 0);
        cr_assert_eq(module_file_open(root, "extra/nvme.ko", MODULE_FILE_MAX, &fd, &size), 0);
        cr_assert_eq(size, 1);
        close(fd);
        /* RESOLVE_IN_ROOT: "/" and ".." stop at the tree, so these name files
         * inside it, which do not exist. */
        cr_assert_eq(module_file_open(root, "abs.ko", MODULE_FILE_MAX, &fd, &size), -ENOENT);
        cr_assert_eq(module_file_open(root, "up.ko", MODULE_FILE_MAX, &fd, &size), -ENOENT);
        cr_assert_eq(module_file_open(root, "../secret.ko", MODULE_FILE_MAX, &fd, &size), -ENOENT);
        cr_assert_eq(module_file_open(root, "self.ko", MODULE_FILE_MAX, &fd, &size), -ENOENT,
                     "/proc/self/exe inside the tree does not exist");
        /* The user-space walk (openat2() refused by the sandbox) contains the
         * same escapes. */
        fd = module_open_in_root_walk(root, "extra/nvme.ko", O_RDONLY | O_CLOEXEC);
        cr_assert_geq(fd, 0);
        close(fd);
        for (const char *const *esc = (const char *const[]) { "abs.ko", "up.ko", "../secret.ko", "self.ko",
                                                               "extra/../../secret.ko", "/secret.ko", NULL };
             *esc; esc++)
                cr_assert_eq(module_open_in_root_walk(root, *esc, O_RDONLY | O_CLOEXEC), -ENOENT, "%s", *esc);
        fd = module_open_in_root_walk(root, "extra/../extra/nvme.ko", O_RDONLY | O_CLOEXEC);
        cr_assert_geq(fd, 0, "'..' inside the tree is fine");
        close(fd);
        snprintf(p, sizeof(p), "%s/tree/in.ko", fixture_tree);
        cr_assert_eq(symlink("/extra/nvme.ko", p), 0);
        fd = module_open_in_root_walk(root, "in.ko", O_RDONLY | O_CLOEXEC);
        cr_assert_geq(fd, 0, "an absolute symlink means the root's own file");
        close(fd);
        snprintf(p, sizeof(p), "%s/tree/loop.ko", fixture_tree);
        cr_assert_eq(symlink("loop.ko", p), 0);
        cr_assert_eq(module_open_in_root_walk(root, "loop.ko", O_RDONLY | O_CLOEXEC), -ELOOP);
        /* A FIFO neither blocks nor passes. */
        cr_assert_eq(module_file_open(root, "fifo.ko", MODULE_FILE_MAX, &fd, &size), -EBADFD);
        cr_assert_eq(module_file_open(root, "extra", MODULE_FILE_MAX, &fd, &size), -EBADFD, "a directory");
        close(root);
}

Test(module_file, size_cap) {
        char p[256];
        int root, fd = -1;
        size_t size;

        fixture_tree_write("big.ko", "", 0);
        snprintf(p, sizeof(p), "%s/big.ko", fixture_tree);
        cr_assert_eq(truncate(p, (off_t) MODULE_FILE_MAX + 1), 0);
        root = open(fixture_tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cr_assert_eq(module_file_open(root, "big.ko", MODULE_FILE_MAX, &fd, &size), -EFBIG);
        close(root);
}

Test(module_file, tree_index_refuses_escapes) {
        unsigned char ko[1024];
        size_t n = fixture_ko(MODINFO("name=nvme\0vermagic=6.1 \0"), ko, sizeof(ko));
        const char dep[] = "extra/../../../x/nvme.ko:\n/elsewhere/nvme_core.ko:\nextra/nvme_fabrics.ko:\n";
        ModuleTree *t = NULL;
        char p[256];

        fixture_tree_write("lib/modules/6.1/extra/nvme_fabrics.ko", ko, n);
        fixture_tree_write("lib/modules/6.1/modules.dep", dep, sizeof(dep) - 1);
        snprintf(p, sizeof(p), "%s/lib/modules/6.1", fixture_tree);
        cr_assert_eq(module_tree_open(p, &t), 0);
        cr_assert_null(module_tree_find(t, "nvme"), "a '..' path is not indexed");
        cr_assert_null(module_tree_find(t, "nvme_core"), "another absolute path is not indexed");
        cr_assert_not_null(module_tree_find(t, "nvme_fabrics"));
        module_tree_free(t);

        /* Inside a root: the container's own absolute path is its own. */
        snprintf(p, sizeof(p), "%s/lib/modules/6.1/modules.dep", fixture_tree);
        cr_assert_eq(unlink(p), 0);
        snprintf(p, sizeof(p), "%s/lib/modules/6.1/extra/link.ko", fixture_tree);
        cr_assert_eq(symlink("/lib/modules/6.1/extra/nvme_fabrics.ko", p), 0);
        {
                int root = open(fixture_tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd = -1;
                const ModuleTreeEntry *e;
                size_t size;

                cr_assert_eq(module_tree_open_at(root, "lib/modules/6.1", "(test)", &t), 0);
                e = module_tree_find(t, "nvme_fabrics");
                cr_assert_not_null(e, "found by the walk");
                cr_assert_eq(module_tree_open_module(t, e, &fd, &size), 0);
                cr_assert_eq(size, n);
                close(fd);
                module_tree_free(t);
                close(root);
        }
}
