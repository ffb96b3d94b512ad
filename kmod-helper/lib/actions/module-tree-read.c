/* SPDX-License-Identifier: Apache-2.0 */
/* Reading a module tree from disk into its index (module-tree.h): opening
 * the tree inside its root, its modules.dep and modules.builtin (parsed in
 * the parser child for a tree that is not the host's), the walk when it has
 * no modules.dep, and opening or reading one of its module files. */
#include <errno.h>
#include <fcntl.h>
#include <libkmod.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actions/kmod-util.h"
#include "actions/module-elf.h"
#include "actions/module-file.h"
#include "actions/module-tree.h"
#include "actions/modules-dep-text.h"
#include "actions/tree-walk.h"
#include "modules/module-stack.h"
#include "sandbox/modules-dep-job.h"
#include "util/macro.h"
#include "util/strv.h"

static int tree_path(const ModuleTree *t, const char *relpath, char **ret) {
        if (asprintf(ret, "%s%s%s", t->in_root, t->in_root[0] && relpath[0] ? "/" : "", relpath) < 0)
                return -ENOMEM;
        return 0;
}

int module_tree_open_module(const ModuleTree *t, const ModuleTreeEntry *e, int *ret_fd, size_t *ret_size) {
        _cleanup_free_ char *p = NULL;
        int r;

        if (!t->has_fds || !module_relpath_valid(e->relpath))
                return -EINVAL;
        r = tree_path(t, e->relpath, &p);
        if (r < 0)
                return r;
        return module_file_open(t->root_fd, p, MODULE_FILE_MAX, ret_fd, ret_size);
}

/* Without modules.dep: the walk (tree-walk.h), each readable module added. */
static int walk_tree(ModuleTree *t, const char **ret_why) {
        TreeWalkFile *files = NULL;
        size_t n = 0;
        int r;

        r = tree_walk(t->root_fd, t->in_root, t->confined, &files, &n, ret_why);
        for (size_t i = 0; r >= 0 && i < n; i++)
                if (files[i].depends)
                        r = module_tree_add_entry(t, TAKE_PTR(files[i].name), files[i].relpath,
                                                  TAKE_PTR(files[i].depends), true);
        tree_walk_free(files, n);
        return r;
}

static int read_index(ModuleTree *t) {
        _cleanup_free_ char *p = NULL, *text = NULL;
        _cleanup_close_ int fd = -EBADF;
        size_t size;
        int r;

        r = tree_path(t, "modules.dep", &p);
        if (r < 0)
                return r;
        r = module_file_open(t->root_fd, p, MODULE_DEP_FILE_MAX, &fd, &size);
        if (r == -ENOENT)
                return walk_tree(t, NULL);
        if (r >= 0)
                r = module_file_read(fd, size, &text, &size);
        if (r < 0)
                return r;
        t->from_modules_dep = true;
        return module_tree_parse_modules_dep(t, text);
}

/* An index file of the tree, read whole: 0 with *ret (NULL when the tree
 * has none), or -errno. */
static int read_index_file(const ModuleTree *t, const char *file, char **ret, size_t *ret_size) {
        _cleanup_free_ char *p = NULL;
        _cleanup_close_ int fd = -EBADF;
        size_t size;
        int r;

        *ret = NULL;
        *ret_size = 0;
        r = tree_path(t, file, &p);
        if (r < 0)
                return r;
        r = module_file_open(t->root_fd, p, MODULE_DEP_FILE_MAX, &fd, &size);
        if (r == -ENOENT)
                return 0;
        if (r >= 0)
                r = module_file_read(fd, size, ret, ret_size);
        return r;
}

/* modules.builtin: one path per line, kernel/block/t10-pi.ko. A tree
 * without one (a container's, an old kernel's) has none built in that we
 * could know of. */
static int read_builtin(ModuleTree *t) {
        _cleanup_free_ char *text = NULL;
        size_t size;
        int r;

        t->builtin = strv_new_empty();
        if (!t->builtin)
                return -ENOMEM;
        r = read_index_file(t, "modules.builtin", &text, &size);
        if (r < 0 || !text)
                return r;
        return module_builtin_parse(text, &t->builtin);
}

/* A confined tree's index: both files read here, parsed in one child,
 * every field checked (modules-dep-job.h), the modules added and settled
 * here as read_index() does; without modules.dep, the walk. */
static int read_index_confined(ModuleTree *t, const char **ret_why) {
        _cleanup_free_ char *dep = NULL, *builtin = NULL;
        _cleanup_(module_index_freep) ModuleIndex *x = NULL;
        size_t dep_size, builtin_size;
        int r;

        r = read_index_file(t, "modules.dep", &dep, &dep_size);
        if (r >= 0)
                r = read_index_file(t, "modules.builtin", &builtin, &builtin_size);
        if (r < 0)
                return r;
        if (dep || builtin) {
                r = module_index_parse_confined(dep, dep_size, builtin, builtin_size, &x, ret_why);
                if (r < 0)
                        return r;
                t->builtin = TAKE_PTR(x->builtin);
        } else
                t->builtin = strv_new_empty();
        if (!t->builtin)
                return -ENOMEM;
        if (!dep)
                return walk_tree(t, ret_why);
        for (size_t i = 0; i < x->n_entries; i++) {
                ModuleIndexEntry *e = &x->entries[i];

                r = module_tree_add_entry(t, TAKE_PTR(e->name), e->relpath, TAKE_PTR(e->depends), false);
                if (r < 0)
                        return r;
        }
        t->from_modules_dep = true;
        return module_tree_settle_duplicates(t);
}

static int tree_new(int root_fd, const char *in_root, const char *display, bool confined, ModuleTree **ret,
                    const char **ret_why) {
        _cleanup_(module_tree_freep) ModuleTree *t = calloc(1, sizeof(*t));
        _cleanup_close_ int check = -EBADF;
        int r;

        if (!t) {
                close(root_fd);
                return -ENOMEM;
        }
        t->root_fd = root_fd;
        t->has_fds = true;
        t->confined = confined;
        t->dir = strdup(display);
        t->in_root = strdup(in_root);
        if (!t->dir || !t->in_root)
                return -ENOMEM;
        r = module_dir_open(t->root_fd, t->in_root, &check);
        if (r < 0)
                return r;
        t->ctx = kmod_new_quiet(display);
        if (!t->ctx)
                return -ENOMEM;
        if (confined)
                r = read_index_confined(t, ret_why);
        else {
                r = read_index(t);
                if (r >= 0)
                        r = read_builtin(t);
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(t);
        return 0;
}

static int open_dir(const char *dir, bool confined, ModuleTree **ret, const char **ret_why) {
        int fd;

        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOTDIR ? -ENOTDIR : -errno;
        return tree_new(fd, "", dir, confined, ret, ret_why); /* takes the fd, also on failure */
}

static int open_at(int root_fd, const char *in_root, const char *display, bool confined, ModuleTree **ret,
                   const char **ret_why) {
        int fd;

        if (!in_root || (in_root[0] && !module_relpath_valid(in_root)))
                return -EINVAL;
        fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return -errno;
        return tree_new(fd, in_root, display, confined, ret, ret_why);
}

int module_tree_open(const char *dir, ModuleTree **ret) {
        return open_dir(dir, false, ret, NULL);
}

int module_tree_open_at(int root_fd, const char *in_root, const char *display, ModuleTree **ret) {
        return open_at(root_fd, in_root, display, false, ret, NULL);
}

int module_tree_open_confined(const char *dir, ModuleTree **ret, const char **ret_why) {
        return open_dir(dir, true, ret, ret_why);
}

int module_tree_open_at_confined(int root_fd, const char *in_root, const char *display, ModuleTree **ret,
                                 const char **ret_why) {
        return open_at(root_fd, in_root, display, true, ret, ret_why);
}

/* The host's own compressed modules (RHEL 9 ships .ko.xz): libkmod reads and
 * decompresses them by path. Only for the host's tree, which is the host's. */
int module_tree_meta_libkmod(const ModuleTree *t, const ModuleTreeEntry *e, ModuleMeta *ret) {
        _cleanup_(kmod_module_unrefp) struct kmod_module *mod = NULL;
        _cleanup_(kmod_module_info_free_listp) struct kmod_list *info = NULL;
        _cleanup_(module_meta_done) ModuleMeta m = {};
        struct kmod_list *i;
        int r;

        m.depends = strv_new_empty();
        if (!m.depends)
                return -ENOMEM;
        r = kmod_module_new_from_path(t->ctx, e->path, &mod);
        if (r >= 0)
                r = kmod_module_get_info(mod, &info);
        if (r < 0)
                return r;
        kmod_list_foreach(i, info) {
                const char *k = kmod_module_info_get_key(i), *v = kmod_module_info_get_value(i);
                char **target = streq(k, "name") ? &m.name : streq(k, "vermagic") ? &m.vermagic : NULL;

                if (!v)
                        continue;
                if (target && !*target && !(*target = strndup(v, strcspn(v, " "))))
                        return -ENOMEM;
                if (streq(k, "depends")) {
                        _cleanup_free_ char *copy = strdup(v);
                        char *save = NULL;

                        if (!copy)
                                return -ENOMEM;
                        for (char *t2 = strtok_r(copy, ",", &save); t2; t2 = strtok_r(NULL, ",", &save)) {
                                module_name_normalize(t2);
                                if (strv_extend(&m.depends, t2) < 0)
                                        return -ENOMEM;
                        }
                }
        }
        if (!m.name || !module_name_valid(m.name))
                return -EBADMSG;
        *ret = m;
        m = (ModuleMeta) {};
        return 0;
}

