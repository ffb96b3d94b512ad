/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actions/load-prepare.h"
#include "actions/module-file.h"
#include "host/host-root.h"
#include "util/macro.h"
#include "util/strv.h"

/* The same bounds as the load's own resolution: deeper is a cycle, and no
 * real stack has that many files. */
#define PREPARE_MAX_DEPTH 32
#define PREPARE_MAX_FILES 64u

typedef struct PreparedFile {
        const ModuleTreeEntry *entry;
        struct stat st;   /* of the fd it was read from, before the read */
        ModuleImageKind kind;
        ModuleMeta meta;
        bool taken;
} PreparedFile;

static struct {
        ModuleTree *tree;        /* owned until a load takes it */
        const ModuleTree *taken; /* the tree a load took: the files below are its */
        char *in_root, *dir;
        LoadPrepKey key;         /* key.in_root and key.dir: the two above */
        PreparedFile *files;
        size_t n_files;
} prep;

bool load_prepared_same(const LoadPrepKey *was, const LoadPrepKey *now) {
        return was->root.st_dev == now->root.st_dev && was->root.st_ino == now->root.st_ino &&
               streq(was->in_root, now->in_root) && streq(was->dir, now->dir) &&
               tree_files_unchanged(&was->files, &now->files);
}

void load_prepared_drop(void) {
        for (size_t i = 0; i < prep.n_files; i++)
                module_meta_done(&prep.files[i].meta);
        free(prep.files);
        module_tree_free(prep.tree);
        free(prep.in_root);
        free(prep.dir);
        prep = (typeof(prep)) {};
}

int load_tree_display(const LoadOptions *opts, char **ret) {
        if (opts->in_root)
                return asprintf(ret, "(container root)/%s", opts->module_tree) < 0 ? -ENOMEM : 0;
        return host_path(opts->module_tree, ret);
}

/* The key of the tree opts asks for, as it is now, and the directory fd it
 * resolves in (a new one for a path, opts->root_fd's duplicate otherwise). */
static int key_now(const LoadOptions *opts, const char *display, LoadPrepKey *ret, int *ret_fd) {
        _cleanup_close_ int fd = -EBADF;
        int r;

        fd = opts->in_root ? fcntl(opts->root_fd, F_DUPFD_CLOEXEC, 3)
                           : open(display, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        *ret = (LoadPrepKey) { .in_root = opts->in_root ? opts->module_tree : "", .dir = display };
        if (fstat(fd, &ret->root) < 0)
                return -errno;
        r = tree_files_stat(fd, ret->in_root, &ret->files);
        if (r < 0)
                return r;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

static PreparedFile *find_file(const ModuleTreeEntry *e) {
        for (size_t i = 0; i < prep.n_files; i++)
                if (prep.files[i].entry == e)
                        return &prep.files[i];
        return NULL;
}

/* A file that cannot be prepared (missing, too large, compressed, no valid
 * modinfo) is left out: the load reads it, and says what is wrong with it. */
static int prepare_module(const char *name, unsigned depth) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *image = NULL;
        _cleanup_(module_meta_done) ModuleMeta meta = {};
        const ModuleTreeEntry *e = module_tree_find(prep.tree, name);
        PreparedFile *n;
        struct stat st;
        ModuleImageKind kind;
        char **depends;
        size_t size;
        int r;

        if (!e || depth > PREPARE_MAX_DEPTH || prep.n_files >= PREPARE_MAX_FILES || find_file(e))
                return 0;
        if (module_tree_open_module(prep.tree, e, &fd, &size) < 0 || fstat(fd, &st) < 0)
                return 0;
        r = module_file_read(fd, size, &image, &size);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        kind = module_image_kind(image, size);
        if (module_image_kind_is_compressed(kind))
                return 0;
        r = module_meta_parse(image, size, &meta);
        if (r < 0)
                return r == -ENOMEM ? r : 0;

        n = reallocarray(prep.files, prep.n_files + 1, sizeof(*n));
        if (!n)
                return -ENOMEM;
        prep.files = n;
        prep.files[prep.n_files++] = (PreparedFile) { .entry = e, .st = st, .kind = kind, .meta = meta };
        depends = meta.depends; /* owned by the entry now; the array of entries may move, it does not */
        meta = (ModuleMeta) {};

        STRV_FOREACH(d, e->depends) {
                r = prepare_module(*d, depth + 1);
                if (r < 0)
                        return r;
        }
        STRV_FOREACH(d, depends) {
                r = prepare_module(*d, depth + 1);
                if (r < 0)
                        return r;
        }
        return 0;
}

int load_prepare(const LoadOptions *opts) {
        static const char *const default_modules[] = { "nvme", NULL };
        _cleanup_free_ char *display = NULL;
        _cleanup_close_ int fd = -EBADF;
        const char *const *wanted;
        int r;

        load_prepared_drop();
        if (!opts || !opts->module_tree)
                return -EINVAL;
        r = load_tree_display(opts, &display);
        if (r < 0)
                return r;
        /* The key before the tree is read: a change while it reads is seen. */
        r = key_now(opts, display, &prep.key, &fd);
        if (r >= 0)
                r = module_tree_open_at(fd, prep.key.in_root, display, &prep.tree);
        if (r >= 0) {
                prep.in_root = strdup(prep.key.in_root);
                prep.dir = TAKE_PTR(display);
                r = prep.in_root ? 0 : -ENOMEM;
        }
        if (r < 0) {
                load_prepared_drop();
                return r;
        }
        prep.key.in_root = prep.in_root;
        prep.key.dir = prep.dir;

        wanted = opts->modules ? (const char *const *) opts->modules : default_modules;
        for (size_t i = 0; wanted[i]; i++) {
                _cleanup_free_ char *name = strdup(wanted[i]);

                if (!name) {
                        load_prepared_drop();
                        return -ENOMEM;
                }
                for (char *c = name; *c; c++)
                        if (*c == '-')
                                *c = '_';
                r = prepare_module(name, 0);
                if (r < 0) {
                        load_prepared_drop();
                        return r;
                }
        }
        return 0;
}

int load_prepared_tree(const LoadOptions *opts, const char *display, ModuleTree **ret) {
        _cleanup_close_ int fd = -EBADF;
        LoadPrepKey now;

        if (prep.tree && key_now(opts, display, &now, &fd) >= 0 && load_prepared_same(&prep.key, &now)) {
                prep.taken = prep.tree;
                *ret = TAKE_PTR(prep.tree);
                return 0;
        }
        load_prepared_drop();
        if (opts->in_root)
                return module_tree_open_at(opts->root_fd, opts->module_tree, display, ret);
        return module_tree_open(display, ret);
}

static PreparedFile *prepared_file(const ModuleTree *t, const ModuleTreeEntry *e, int fd) {
        PreparedFile *f;
        struct stat st;

        if (!t || t != prep.taken)
                return NULL;
        f = find_file(e);
        if (!f || f->taken || fstat(fd, &st) < 0 || !stat_unchanged(&f->st, &st))
                return NULL;
        return f;
}

const ModuleMeta *load_prepared_peek(const ModuleTree *t, const ModuleTreeEntry *e, int fd) {
        PreparedFile *f = prepared_file(t, e, fd);

        return f ? &f->meta : NULL;
}

int load_prepared_file(const ModuleTree *t, const ModuleTreeEntry *e, int fd, ModuleImageKind *ret_kind,
                       ModuleMeta *ret_meta) {
        PreparedFile *f = prepared_file(t, e, fd);

        if (!f)
                return 0;
        f->taken = true;
        *ret_kind = f->kind;
        *ret_meta = f->meta;
        f->meta = (ModuleMeta) {};
        return 1;
}
