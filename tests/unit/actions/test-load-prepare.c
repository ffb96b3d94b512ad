/* SPDX-License-Identifier: Apache-2.0 */
/* A load prepared before the unload: the rule that tells the prepared tree
 * from the one asked for at the load, and the prepared files a load takes
 * only while they are the very files read. */
#include <criterion/criterion.h>
#include <elf.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actions/load-prepare.h"
#include "actions/module-file.h"
#include "actions/tree-files.h"

/* A minimal ELF64 relocatable object: header, .modinfo, .shstrtab, and the
 * section headers (null, .modinfo, .shstrtab). Written here rather than
 * taken from the fake node so that the test can break it on purpose. */
static size_t build_ko(const char *modinfo, size_t milen, unsigned char *buf, size_t cap) {
        static const char shstr[] = "\0.modinfo\0.shstrtab";
        Elf64_Ehdr eh = { .e_type = ET_REL, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
                          .e_ehsize = sizeof(Elf64_Ehdr), .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = 3,
                          .e_shstrndx = 2 };
        Elf64_Shdr sh[3] = {};
        size_t off = sizeof(eh);

        memcpy(eh.e_ident, ELFMAG, SELFMAG);
        eh.e_ident[EI_CLASS] = ELFCLASS64;
        eh.e_ident[EI_DATA] = ELFDATA2LSB;
        eh.e_ident[EI_VERSION] = EV_CURRENT;
        cr_assert(off + milen + sizeof(shstr) + sizeof(sh) <= cap);
        memcpy(buf + off, modinfo, milen);
        sh[1] = (Elf64_Shdr) { .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_offset = off, .sh_size = milen };
        off += milen;
        memcpy(buf + off, shstr, sizeof(shstr));
        sh[2] = (Elf64_Shdr) { .sh_name = 10, .sh_type = SHT_STRTAB, .sh_offset = off, .sh_size = sizeof(shstr) };
        off += sizeof(shstr);
        eh.e_shoff = off;
        memcpy(buf + off, sh, sizeof(sh));
        off += sizeof(sh);
        memcpy(buf, &eh, sizeof(eh));
        return off;
}

#define MODINFO(s) s, sizeof(s) - 1

static char dir[64];

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(p);
}

static void mk(void) {
        strcpy(dir, "/tmp/sg-prepare-XXXXXX");
        cr_assert_not_null(mkdtemp(dir));
}

static void rm(void) {
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void write_file(const char *rel, const void *data, size_t n) {
        char p[256];
        FILE *f;

        snprintf(p, sizeof(p), "%s/%s", dir, rel);
        for (char *s = strchr(p + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = '\0';
                mkdir(p, 0755);
                *s = '/';
        }
        f = fopen(p, "we");
        cr_assert_not_null(f, "%s", p);
        cr_assert_eq(fwrite(data, 1, n, f), n);
        fclose(f);
}

static void write_ko(const char *rel, const char *modinfo, size_t milen) {
        unsigned char buf[1024];

        write_file(rel, buf, build_ko(modinfo, milen, buf, sizeof(buf)));
}

static int root_fd = -EBADF;
static LoadOptions opts;

static void setup(void) {
        static const char dep[] = "extra/nvme.ko: extra/nvme-core.ko\nextra/nvme-core.ko:\n";

        mk();
        write_file("lib/modules/6.1/modules.dep", dep, sizeof(dep) - 1);
        write_ko("lib/modules/6.1/extra/nvme.ko", MODINFO("name=nvme\0vermagic=6.1 SMP\0depends=nvme-core\0"));
        write_ko("lib/modules/6.1/extra/nvme-core.ko", MODINFO("name=nvme_core\0vermagic=6.1 SMP\0depends=\0"));
        root_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cr_assert_geq(root_fd, 0);
        opts = (LoadOptions) { .module_tree = "lib/modules/6.1", .in_root = true, .root_fd = root_fd };
}

static void teardown(void) {
        load_prepared_drop();
        close(root_fd);
        rm();
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
        write_file("lib/modules/6.1/modules.dep", dep, sizeof(dep) - 1);
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
