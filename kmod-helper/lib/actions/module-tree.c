/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
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
#include "sandbox/module-meta-job.h"
#include "sandbox/modules-dep-job.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

/* A tree walk never needs to go deeper than kernel/drivers/nvme/host/...;
 * the bound keeps a hostile tree (symlink loops are not followed anyway)
 * from costing more than it should. */
#define TREE_WALK_MAX_DEPTH 12
/* A confined tree's walk hands its files' images to the parser child in
 * batches of at most this many bytes (or MODULE_META_BATCH_MAX files): the
 * parent holds a batch twice (read, and in the memfd). */
#define TREE_WALK_BATCH_BYTES (16u * 1024u * 1024u)

static const char *const module_suffixes[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz" };

int module_name_from_path(const char *path, char **ret) {
        const char *base = strrchr(path, '/');
        size_t n = 0;
        char *name;

        base = base ? base + 1 : path;
        for (size_t i = 0; i < ELEMENTSOF(module_suffixes); i++) {
                size_t l = strlen(base), s = strlen(module_suffixes[i]);

                if (l > s && streq(base + l - s, module_suffixes[i])) {
                        n = l - s;
                        break;
                }
        }
        if (n == 0)
                return -EINVAL;

        name = strndup(base, n);
        if (!name)
                return -ENOMEM;
        for (char *c = name; *c; c++)
                if (*c == '-')
                        *c = '_';
        *ret = name;
        return 0;
}

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

/* modules.dep paths are relative to the tree; depmods before kmod wrote
 * absolute /lib/modules/<release>/... paths, which inside a container's
 * root mean the same tree. Anything else absolute, and any ".." or "."
 * component, is refused: the index must not name a file outside the tree
 * (extra/../../../x/nvme.ko). */
static const char *relative_module_path(const char *p) {
        if (p[0] == '/') {
                if (!strneq(p, "/lib/modules/", 13))
                        return NULL;
                p = strchr(p + 13, '/');
                if (!p || !p[1])
                        return NULL;
                p++;
        }
        return module_relpath_valid(p) ? p : NULL;
}

static int parse_dep_line(ModuleTree *t, char *line) {
        _cleanup_free_ char *name = NULL;
        _cleanup_strv_free_ char **deps = NULL;
        char *colon, *rel, *tok, *save = NULL;
        int r;

        colon = strchr(line, ':');
        if (!colon)
                return 0;
        *colon = '\0';
        rel = (char *) relative_module_path(line);
        if (!rel || module_name_from_path(rel, &name) < 0)
                return 0;
        deps = strv_new_empty();
        if (!deps)
                return -ENOMEM;

        for (tok = strtok_r(colon + 1, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
                char *dep = NULL;

                if (module_name_from_path(tok, &dep) < 0)
                        continue;
                if (!module_name_valid(dep)) {
                        free(dep);
                        continue;
                }
                r = strv_push(&deps, dep);
                if (r < 0)
                        return r;
        }
        if (!module_name_valid(name))
                return 0;
        return tree_add_entry(t, TAKE_PTR(name), rel, TAKE_PTR(deps), false);
}

int module_tree_parse_modules_dep_lines(ModuleTree *t, const char *text) {
        _cleanup_free_ char *copy = strdup(text);
        char *line, *save = NULL;
        int r;

        if (!copy)
                return -ENOMEM;
        for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                r = parse_dep_line(t, line);
                if (r < 0)
                        return r;
        }
        return 0;
}

int module_tree_parse_modules_dep(ModuleTree *t, const char *text) {
        int r = module_tree_parse_modules_dep_lines(t, text);

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

/* Without modules.dep, a module's dependencies are its modinfo `depends`,
 * read from the file itself. A compressed file's cannot be read without
 * decompressing it: the load reads them then (the host's tree), or refuses
 * the file (a container's, see stack-load.c). */
static int walk_file_depends(ModuleTree *t, const char *relpath, char ***ret) {
        _cleanup_free_ char *p = NULL, *image = NULL;
        _cleanup_close_ int fd = -EBADF;
        ModuleMeta meta = {};
        size_t size;
        int r;

        r = tree_path(t, relpath, &p);
        if (r >= 0)
                r = module_file_open(t->root_fd, p, MODULE_FILE_MAX, &fd, &size);
        if (r >= 0)
                r = module_file_read(fd, size, &image, &size);
        if (r < 0)
                return r;
        if (module_image_kind_is_compressed(module_image_kind(image, size))) {
                *ret = strv_new_empty();
                return *ret ? 0 : -ENOMEM;
        }
        r = module_meta_parse(image, size, &meta);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(meta.depends);
        module_meta_done(&meta);
        return 0;
}

/* A confined tree's files, found by the walk, read after it in batches. */
typedef struct WalkFile {
        char *name, *relpath;
        char **depends; /* NULL until read: a file that cannot be read stays out */
} WalkFile;

typedef struct Walk {
        ModuleTree *t;
        WalkFile *files;
        size_t n_files;
} Walk;

static void walk_done(Walk *w) {
        for (size_t i = 0; i < w->n_files; i++) {
                free(w->files[i].name);
                free(w->files[i].relpath);
                strv_free(w->files[i].depends);
        }
        free(w->files);
}

static int walk_defer(Walk *w, char *name, const char *relpath) {
        WalkFile *n = reallocarray(w->files, w->n_files + 1, sizeof(*n));
        char *rel = strdup(relpath);

        if (!n || !rel) {
                free(name);
                free(rel);
                if (n)
                        w->files = n;
                return -ENOMEM;
        }
        w->files = n;
        w->files[w->n_files++] = (WalkFile) { .name = name, .relpath = rel };
        return 0;
}

static int walk(Walk *w, const char *rel, unsigned depth);

static int walk_entry(Walk *w, const char *rel, const struct dirent *de, unsigned depth) {
        _cleanup_free_ char *sub = NULL, *name = NULL;
        char **deps = NULL;

        if (de->d_name[0] == '.')
                return 0;
        if (asprintf(&sub, "%s%s%s", rel, rel[0] ? "/" : "", de->d_name) < 0)
                return -ENOMEM;
        if (de->d_type == DT_DIR)
                return walk(w, sub, depth + 1);
        if (de->d_type != DT_REG && de->d_type != DT_UNKNOWN)
                return 0; /* symlinks are not followed: no loops */
        if (module_name_from_path(de->d_name, &name) < 0 || !module_name_valid(name))
                return 0;
        if (w->t->confined)
                return walk_defer(w, TAKE_PTR(name), sub);
        if (walk_file_depends(w->t, sub, &deps) < 0)
                return 0; /* not a readable module: skip it, a load would fail anyway */
        return tree_add(w->t, TAKE_PTR(name), sub, deps);
}

/* Every directory is opened inside the root, by fd: a directory swapped
 * for a symlink while we walk still cannot take us outside. */
static int walk(Walk *w, const char *rel, unsigned depth) {
        _cleanup_free_ char *p = NULL;
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        int fd, r;

        if (depth > TREE_WALK_MAX_DEPTH)
                return 0;
        r = tree_path(w->t, rel, &p);
        if (r < 0)
                return r;
        r = module_dir_open(w->t->root_fd, p, &fd);
        if (r < 0)
                return depth == 0 ? r : 0; /* an unreadable subdirectory is skipped */
        d = fdopendir(fd);
        if (!d) {
                r = -errno;
                close(fd);
                return r;
        }
        while ((de = readdir(d))) {
                r = walk_entry(w, rel, de, depth);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* One file of a confined walk, read: 1 with *ret_image (to parse), 1 with
 * f->depends set and no image (compressed: as walk_file_depends()), 0 when
 * it cannot be read (skipped, as walk_entry() skips it), -ENOMEM. */
static int walk_read(const ModuleTree *t, WalkFile *f, char **ret_image, size_t *ret_size) {
        _cleanup_free_ char *p = NULL;
        _cleanup_close_ int fd = -EBADF;
        size_t size;
        int r;

        *ret_image = NULL;
        r = tree_path(t, f->relpath, &p);
        if (r >= 0)
                r = module_file_open(t->root_fd, p, MODULE_FILE_MAX, &fd, &size);
        if (r >= 0)
                r = module_file_read(fd, size, ret_image, ret_size);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        if (module_image_kind_is_compressed(module_image_kind(*ret_image, *ret_size))) {
                free(*ret_image);
                *ret_image = NULL;
                f->depends = strv_new_empty();
                return f->depends ? 1 : -ENOMEM;
        }
        return 1;
}

/* Files [from, to) of a confined walk: their modinfo in one child. */
static int walk_batch(Walk *w, size_t from, size_t *ret_to, const char **ret_why) {
        char *images[MODULE_META_BATCH_MAX] = {};
        BundlePart parts[MODULE_META_BATCH_MAX];
        size_t which[MODULE_META_BATCH_MAX], n = 0, bytes = 0, i = from;
        ModuleMeta metas[MODULE_META_BATCH_MAX] = {};
        int errors[MODULE_META_BATCH_MAX], r = 0;

        for (; i < w->n_files && n < MODULE_META_BATCH_MAX && bytes < TREE_WALK_BATCH_BYTES; i++) {
                size_t size = 0;

                r = walk_read(w->t, &w->files[i], &images[n], &size);
                if (r < 0)
                        goto out;
                if (!images[n])
                        continue;
                parts[n] = (BundlePart) { images[n], size };
                which[n++] = i;
                bytes += size;
        }
        *ret_to = i;
        r = n > 0 ? module_meta_parse_confined(parts, n, metas, errors, ret_why) : 0;
        for (size_t k = 0; r >= 0 && k < n; k++)
                if (errors[k] == 0)
                        w->files[which[k]].depends = TAKE_PTR(metas[k].depends);
out:
        for (size_t k = 0; k < MODULE_META_BATCH_MAX; k++) {
                free(images[k]);
                module_meta_done(&metas[k]);
        }
        return r;
}

/* A confined walk's files, read in batches, added in the walk's order. */
static int walk_confined(Walk *w, const char **ret_why) {
        int r;

        for (size_t i = 0; i < w->n_files;) {
                size_t to = i;

                r = walk_batch(w, i, &to, ret_why);
                if (r < 0)
                        return r;
                i = to;
        }
        for (size_t i = 0; i < w->n_files; i++) {
                WalkFile *f = &w->files[i];

                if (!f->depends)
                        continue; /* not a readable module: skipped */
                r = tree_add(w->t, TAKE_PTR(f->name), f->relpath, TAKE_PTR(f->depends));
                if (r < 0)
                        return r;
        }
        return 0;
}

static int walk_tree(ModuleTree *t, const char **ret_why) {
        Walk w = { .t = t };
        int r;

        r = walk(&w, "", 0);
        if (r >= 0 && t->confined)
                r = walk_confined(&w, ret_why);
        walk_done(&w);
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

int module_builtin_parse(const char *text, char ***list) {
        _cleanup_free_ char *copy = strdup(text);
        char *line, *save = NULL;
        int r;

        if (!copy)
                return -ENOMEM;
        for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *name = NULL;

                if (module_name_from_path(line, &name) < 0)
                        continue;
                if (!module_name_valid(name)) {
                        free(name);
                        continue;
                }
                r = strv_push(list, name);
                if (r < 0)
                        return r;
        }
        return 0;
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

