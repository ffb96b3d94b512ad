/* SPDX-License-Identifier: Apache-2.0 */
/* The host's module index for the stack reads of node-ops-real.c, cached
 * (host-index.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "actions/module-file.h"
#include "actions/module-tree.h"
#include "actions/modules-dep-text.h"
#include "host/host-kernel.h"
#include "host/host-root.h"
#include "modules/module-stack.h"
#include "node/host-index.h"
#include "util/fileio.h"
#include "util/macro.h"

/* The lines of modules.dep that describe a member (drivers/nvme/host):
 * the whole file is 4230 modules on 6.12, which a full index costs 0.25 s
 * to build on a loaded host (far more under TCG), at every stack read. */
static int member_lines(const char *text, char **ret) {
        _cleanup_free_ char *copy = strdup(text), *out = calloc(1, strlen(text) + 1);
        char *line, *save = NULL;

        if (!copy || !out)
                return -ENOMEM;
        for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                _cleanup_free_ char *left = strndup(line, strcspn(line, ":")), *name = NULL;

                if (!left)
                        return -ENOMEM;
                if (module_name_from_path(left, &name) < 0 || !nvme_stack_module(name))
                        continue;
                strcat(strcat(out, line), "\n");
        }
        *ret = TAKE_PTR(out);
        return 0;
}

/* The host's module index, its members' lines only: what each member
 * depends on, the kernel's own facts (6.1: nvme_tcp on nvme_fabrics and
 * nvme_core; 6.12 adds nvme_auth and nvme_keyring, which are not members).
 * NULL when it cannot be read: the health check then judges no dependency. */
static ModuleTree *host_index_parse(const char *dir, const char *path) {
        _cleanup_free_ char *text = NULL, *lines = NULL;
        _cleanup_(module_tree_freep) ModuleTree *t = NULL;
        size_t size;

        if (read_regular_file(path, MODULE_DEP_FILE_MAX, &text, &size) < 0 || member_lines(text, &lines) < 0)
                return NULL;
        t = calloc(1, sizeof(*t));
        if (!t || !(t->dir = strdup(dir)) || module_tree_parse_modules_dep(t, lines) < 0)
                return NULL;
        return TAKE_PTR(t);
}

/* The index as last parsed, and which file it came from: modules.dep changes
 * only when depmod runs (a package install), while every stack read wants it
 * (several per swap; reading and filtering its 4,000+ lines each time was a
 * visible part of a swap under TCG). A stat() tells whether it is still the
 * same file; a new one (another path, inode, size or mtime) is parsed again. */
static struct {
        char *path;
        struct stat st;
        ModuleTree *tree;
} host_index_cache;

static bool same_file(const struct stat *a, const struct stat *b) {
        return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
               a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

const ModuleTree *host_index(void) {
        _cleanup_free_ char *release = NULL, *dir = NULL, *path = NULL;
        struct stat st;

        if (host_kernel_release(&release) < 0 || host_pathf(&dir, "/lib/modules/%s", release) < 0 ||
            asprintf(&path, "%s/modules.dep", dir) < 0)
                return NULL;
        if (stat(path, &st) < 0) {
                st = (struct stat) {};
                free(path); /* nothing to cache */
                path = NULL;
        }
        if (path && host_index_cache.tree && streq(host_index_cache.path, path) && same_file(&host_index_cache.st, &st))
                return host_index_cache.tree;
        host_index_cache.tree = module_tree_free(host_index_cache.tree);
        free(host_index_cache.path);
        host_index_cache.path = NULL;
        if (!path)
                return NULL;
        host_index_cache.tree = host_index_parse(dir, path);
        if (host_index_cache.tree) {
                host_index_cache.path = TAKE_PTR(path);
                host_index_cache.st = st;
        }
        return host_index_cache.tree;
}
