/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <libkmod.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actions/kmod-util.h"
#include "actions/module-elf.h"
#include "actions/module-file.h"
#include "actions/module-tree.h"
#include "actions/tree-walk.h"
#include "sandbox/modules-dep-job.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

static int rank_of(const char *relpath) {
        if (strneq(relpath, "updates/", 8))
                return 0;
        if (strneq(relpath, "extra/", 6))
                return 1;
        return 2;
}

static void entry_done(ModuleTreeEntry *e) {
        free(e->name);
        free(e->path);
        free(e->relpath);
        strv_free(e->depends);
}

ModuleTree *module_tree_free(ModuleTree *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->n_entries; i++)
                entry_done(&t->entries[i]);
        free(t->entries);
        if (t->ctx)
                kmod_unref(t->ctx);
        if (t->has_fds)
                close(t->root_fd);
        free(t->in_root);
        free(t->dir);
        strv_free(t->builtin);
        free(t);
        return NULL;
}

#define SWAP_ENTRY(a, b)                        \
        do {                                    \
                ModuleTreeEntry _t_ = (a);      \
                (a) = (b);                      \
                (b) = _t_;                      \
        } while (0)

static ModuleTreeEntry *find_mutable(const ModuleTree *t, const char *name) {
        for (size_t i = 0; i < t->n_entries; i++)
                if (streq(t->entries[i].name, name))
                        return &t->entries[i];
        return NULL;
}

const ModuleTreeEntry *module_tree_find(const ModuleTree *t, const char *name) {
        return t ? find_mutable(t, name) : NULL;
}

/* Takes ownership of name and depends in every case; relpath is copied.
 * unique: look for an entry of the same name first (the better ranked one
 * stays, at the first one's place); otherwise the caller settles duplicates
 * once, with tree_settle_duplicates(). */
static int tree_add_entry(ModuleTree *t, char *name, const char *relpath, char **depends, bool unique) {
        ModuleTreeEntry new = { .name = name, .depends = depends };
        ModuleTreeEntry *e, *n;

        if (asprintf(&new.path, "%s/%s", t->dir, relpath) < 0)
                new.path = NULL;
        new.relpath = strdup(relpath);
        if (!new.path || !new.relpath) {
                entry_done(&new);
                return -ENOMEM;
        }
        /* Ranked from the entry's own copy, once it has one. (Ranking the
         * argument first gave gcc's UBSan build, whose null check in strncmp()
         * may report and go on, a path where relpath is NULL at the
         * asprintf() above: -Wformat-overflow "directive argument is null".) */
        new.rank = rank_of(new.relpath);

        e = unique ? find_mutable(t, name) : NULL;
        if (e) {
                if (new.rank < e->rank)
                        SWAP_ENTRY(*e, new);
                entry_done(&new);
                return 0;
        }

        n = reallocarray(t->entries, t->n_entries + 1, sizeof(*n));
        if (!n) {
                entry_done(&new);
                return -ENOMEM;
        }
        t->entries = n;
        t->entries[t->n_entries++] = new;
        return 0;
}

static int tree_add(ModuleTree *t, char *name, const char *relpath, char **depends) {
        return tree_add_entry(t, name, relpath, depends, true);
}

typedef struct Ranked {
        const ModuleTreeEntry *e;
        size_t pos;
} Ranked;

static int cmp_ranked(const void *a, const void *b) {
        const Ranked *x = a, *y = b;
        int c = strcmp(x->e->name, y->e->name);

        if (c != 0)
                return c;
        if (x->e->rank != y->e->rank)
                return x->e->rank < y->e->rank ? -1 : 1;
        return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* What tree_add() does entry by entry, for a whole index at once: one entry
 * per name, the best ranked (the earliest of those), at the place of the
 * name's first entry. Looking each name up as it was added cost n^2/2 name
 * comparisons: 9 million for the 4,230 lines of Debian 6.12's modules.dep,
 * seconds of every load under TCG. Here: a sort. */
static int tree_settle_duplicates(ModuleTree *t) {
        size_t n = t->n_entries, k = 0;
        _cleanup_free_ Ranked *r = calloc(n ?: 1, sizeof(*r));
        _cleanup_free_ size_t *slot = calloc(n ?: 1, sizeof(*slot)); /* first place -> winner + 1 */
        _cleanup_free_ bool *won = calloc(n ?: 1, sizeof(*won));
        _cleanup_free_ ModuleTreeEntry *kept = calloc(n ?: 1, sizeof(*kept));

        if (!r || !slot || !won || !kept)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                r[i] = (Ranked) { .e = &t->entries[i], .pos = i };
        qsort(r, n, sizeof(*r), cmp_ranked);
        for (size_t i = 0; i < n;) {
                size_t j = i, first = r[i].pos;

                for (; j < n && streq(r[j].e->name, r[i].e->name); j++)
                        first = r[j].pos < first ? r[j].pos : first;
                slot[first] = r[i].pos + 1;
                won[r[i].pos] = true;
                i = j;
        }
        for (size_t p = 0; p < n; p++) {
                if (slot[p])
                        kept[k++] = t->entries[slot[p] - 1];
                if (!won[p])
                        entry_done(&t->entries[p]);
        }
        free(t->entries);
        t->entries = TAKE_PTR(kept);
        t->n_entries = k;
        return 0;
}

static int add_unsettled(void *userdata, char *name, const char *relpath, char **depends) {
        return tree_add_entry(userdata, name, relpath, depends, false);
}

int module_tree_parse_modules_dep(ModuleTree *t, const char *text) {
        int r = modules_dep_parse_text(text, add_unsettled, t);

        return r < 0 ? r : tree_settle_duplicates(t);
}

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
                        r = tree_add(t, TAKE_PTR(files[i].name), files[i].relpath, TAKE_PTR(files[i].depends));
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

                r = tree_add_entry(t, TAKE_PTR(e->name), e->relpath, TAKE_PTR(e->depends), false);
                if (r < 0)
                        return r;
        }
        t->from_modules_dep = true;
        return tree_settle_duplicates(t);
}

bool module_tree_builtin(const ModuleTree *t, const char *name) {
        return t && strv_contains(t->builtin, name);
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
                                for (char *c = t2; *c; c++)
                                        if (*c == '-')
                                                *c = '_';
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

