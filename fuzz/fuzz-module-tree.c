/* SPDX-License-Identifier: Apache-2.0 */
/* The module-tree walk and index over a tree the input builds: a driver
 * container's /lib/modules/<release> is outside input, symlinks included.
 * Whatever the tree holds (symlinks to absolute paths, "..", /proc/self
 * links, modules.dep naming anything), every module the index hands out
 * opens as a regular file inside the tree.
 *
 * Input, one item per line:
 *   d PATH            a directory
 *   f PATH NAME       a .ko whose .modinfo says name=NAME
 *   l PATH TARGET     a symlink (TARGET is taken as is: it may point anywhere)
 *   m TEXT            a line of modules.dep ("\t" in TEXT is a tab)
 * PATH is relative, made of [A-Za-z0-9._-] components other than "." and
 * "..", so that building the tree never writes outside it. */
#include <assert.h>
#include <elf.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actions/module-file.h"
#include "actions/module-tree.h"
#include "fuzz-util.h"

static char top[64];   /* a private directory for each run */
static char tree[96];  /* top/tree: the module tree */
static char outside[96];

static bool safe_path(const char *p) {
        if (!*p || strlen(p) > 200 || !module_relpath_valid(p))
                return false;
        for (const char *c = p; *c; c++)
                if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/", *c))
                        return false;
        return true;
}

static void parents(char *p) {
        for (char *s = strchr(p + strlen(tree) + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = '\0';
                (void) mkdir(p, 0755);
                *s = '/';
        }
}

static void write_ko(const char *path, const char *name) {
        static const char shstr[] = "\0.modinfo\0.shstrtab";
        char mi[128];
        int milen = snprintf(mi, sizeof(mi), "name=%s", name) + 1;
        Elf64_Ehdr eh = { .e_type = ET_REL, .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = 3, .e_shstrndx = 2 };
        Elf64_Shdr sh[3] = {};
        FILE *f = fopen(path, "we");

        if (!f || milen <= 0 || milen > (int) sizeof(mi)) {
                if (f)
                        fclose(f);
                return;
        }
        memcpy(eh.e_ident, ELFMAG, SELFMAG);
        eh.e_ident[EI_CLASS] = ELFCLASS64;
        eh.e_ident[EI_DATA] = ELFDATA2LSB;
        sh[1] = (Elf64_Shdr) { .sh_name = 1, .sh_offset = sizeof(eh), .sh_size = (uint64_t) milen };
        sh[2] = (Elf64_Shdr) { .sh_name = 10, .sh_offset = sizeof(eh) + (uint64_t) milen, .sh_size = sizeof(shstr) };
        eh.e_shoff = sizeof(eh) + (uint64_t) milen + sizeof(shstr);
        fwrite(&eh, sizeof(eh), 1, f);
        fwrite(mi, (size_t) milen, 1, f);
        fwrite(shstr, sizeof(shstr), 1, f);
        fwrite(sh, sizeof(sh), 1, f);
        fclose(f);
}

static void build(char *text, FILE *dep) {
        char *save = NULL;

        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char kind = line[0], *a, *b, path[512];

                if (!kind || line[1] != ' ')
                        continue;
                if (kind == 'm') {
                        for (char *c = line + 2; *c; c++)
                                if (c[0] == '\\' && c[1] == 't')
                                        c[0] = ' ', c[1] = '\t';
                        fprintf(dep, "%s\n", line + 2);
                        continue;
                }
                a = line + 2;
                b = strchr(a, ' ');
                if (b)
                        *b++ = '\0';
                if (!safe_path(a) || (size_t) snprintf(path, sizeof(path), "%s/%s", tree, a) >= sizeof(path))
                        continue;
                parents(path);
                if (kind == 'd')
                        (void) mkdir(path, 0755);
                else if (kind == 'f' && b)
                        write_ko(path, b);
                else if (kind == 'l' && b)
                        (void) symlink(b, path);
        }
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(p);
}

/* The file behind fd is inside the tree: its path, as the kernel names it. */
static void assert_inside(int fd) {
        char link[64], target[4096];
        ssize_t n;
        struct stat st;

        assert(fstat(fd, &st) == 0 && S_ISREG(st.st_mode));
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        n = readlink(link, target, sizeof(target) - 1);
        assert(n > 0);
        target[n] = '\0';
        assert(strncmp(target, tree, strlen(tree)) == 0 && target[strlen(tree)] == '/');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text, dep_path[128];
        ModuleTree *t = NULL;
        FILE *dep;

        if (size > 4096)
                return 0;
        text = fuzz_text(data, size);
        strcpy(top, "/tmp/fuzz-module-tree-XXXXXX");
        if (!text || !mkdtemp(top)) {
                free(text);
                return 0;
        }
        snprintf(tree, sizeof(tree), "%s/tree", top);
        snprintf(outside, sizeof(outside), "%s/outside.ko", top);
        (void) mkdir(tree, 0755);
        write_ko(outside, "nvme"); /* a module outside the tree, for symlinks to reach for */
        snprintf(dep_path, sizeof(dep_path), "%s/modules.dep", tree);
        /* Without "m" lines there is no modules.dep and the tree is walked. */
        dep = strstr(text, "m ") ? fopen(dep_path, "we") : fopen("/dev/null", "we");
        if (dep) {
                build(text, dep);
                fclose(dep);
        }

        if (module_tree_open(tree, &t) >= 0) {
                for (size_t i = 0; i < t->n_entries; i++) {
                        const ModuleTreeEntry *e = &t->entries[i];
                        size_t sz;
                        int fd;

                        assert(module_relpath_valid(e->relpath));
                        if (module_tree_open_module(t, e, &fd, &sz) >= 0) {
                                assert_inside(fd);
                                close(fd);
                        }
                        /* The user-space walk (where a sandbox refuses openat2())
                         * keeps the same promise. */
                        fd = module_open_in_root_walk(t->root_fd, e->relpath, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
                        if (fd >= 0) {
                                struct stat st;

                                if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
                                        assert_inside(fd);
                                close(fd);
                        }
                }
                module_tree_free(t);
        }
        nftw(top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        free(text);
        return 0;
}
