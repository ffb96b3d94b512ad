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
#include "modules/module-stack.h"
#include "sandbox/module-meta-job.h"
#include "util/macro.h"
#include "util/strv.h"

/* The same bounds as the load's own resolution: deeper is a cycle, and no
 * real stack has that many files. */
#define PREPARE_MAX_DEPTH 32
#define PREPARE_MAX_FILES 64u
/* A round's files go to one parser child. */
_Static_assert(PREPARE_MAX_FILES <= MODULE_META_BATCH_MAX, "a round is one batch");

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

/* One round of the preparation: the files not tried yet, read. */
typedef struct Round {
        const ModuleTreeEntry *entry[PREPARE_MAX_FILES];
        struct stat st[PREPARE_MAX_FILES];
        ModuleImageKind kind[PREPARE_MAX_FILES];
        char *image[PREPARE_MAX_FILES];
        size_t size[PREPARE_MAX_FILES];
        size_t n;
} Round;

static struct {
        const ModuleTreeEntry *entry[PREPARE_MAX_FILES];
        size_t n;
} tried; /* of the current preparation: each file is read once */

static bool was_tried(const ModuleTreeEntry *e) {
        for (size_t i = 0; i < tried.n; i++)
                if (tried.entry[i] == e)
                        return true;
        return false;
}

/* name and, through the tree's index, what it needs: into the round,
 * unless tried already. */
static void round_add(Round *rd, const char *name, unsigned depth) {
        const ModuleTreeEntry *e = module_tree_find(prep.tree, name);

        if (!e || depth > PREPARE_MAX_DEPTH || tried.n >= PREPARE_MAX_FILES || was_tried(e))
                return;
        tried.entry[tried.n++] = e;
        rd->entry[rd->n++] = e;
        STRV_FOREACH(d, e->depends)
                round_add(rd, *d, depth + 1);
}

/* A file that cannot be prepared (missing, too large, compressed, no valid
 * modinfo) is left out: the load reads it, and says what is wrong with it. */
static int round_read(Round *rd, size_t i) {
        _cleanup_close_ int fd = -EBADF;
        size_t size;
        int r;

        if (module_tree_open_module(prep.tree, rd->entry[i], &fd, &size) < 0 || fstat(fd, &rd->st[i]) < 0)
                return 0;
        r = module_file_read(fd, size, &rd->image[i], &rd->size[i]);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        rd->kind[i] = module_image_kind(rd->image[i], rd->size[i]);
        if (module_image_kind_is_compressed(rd->kind[i])) {
                free(rd->image[i]);
                rd->image[i] = NULL;
        }
        return 0;
}

/* The modinfo of the round's files: for a confined tree in one child (a
 * child that fails leaves them all to the load, which says why), else
 * here. errors[i] < 0 for a file left out. */
static int round_parse(Round *rd, ModuleMeta *metas, int *errors) {
        BundlePart parts[PREPARE_MAX_FILES];
        ModuleMeta got[PREPARE_MAX_FILES] = {};
        int got_errors[PREPARE_MAX_FILES];
        size_t which[PREPARE_MAX_FILES], n = 0;
        int r;

        for (size_t i = 0; i < rd->n; i++) {
                errors[i] = -ENOENT;
                if (!rd->image[i])
                        continue;
                if (!prep.tree->confined) {
                        errors[i] = module_meta_parse(rd->image[i], rd->size[i], &metas[i]);
                        if (errors[i] == -ENOMEM)
                                return -ENOMEM;
                        continue;
                }
                parts[n] = (BundlePart) { rd->image[i], rd->size[i] };
                which[n++] = i;
        }
        if (n == 0)
                return 0;
        r = module_meta_parse_confined(parts, n, got, got_errors, NULL);
        if (r == -ENOMEM)
                return r;
        for (size_t k = 0; r >= 0 && k < n; k++) {
                errors[which[k]] = got_errors[k];
                metas[which[k]] = got[k];
        }
        return 0;
}

/* Reads and parses one round; what the parsed files need, from their
 * modinfo, goes into next. */
static int round_run(Round *rd, Round *next, unsigned depth) {
        ModuleMeta metas[PREPARE_MAX_FILES] = {};
        int errors[PREPARE_MAX_FILES], r = 0;

        for (size_t i = 0; r >= 0 && i < rd->n; i++)
                r = round_read(rd, i);
        if (r >= 0)
                r = round_parse(rd, metas, errors);
        for (size_t i = 0; r >= 0 && i < rd->n; i++) {
                PreparedFile *n;

                if (errors[i] < 0)
                        continue;
                n = reallocarray(prep.files, prep.n_files + 1, sizeof(*n));
                if (!n) {
                        r = -ENOMEM;
                        break;
                }
                prep.files = n;
                prep.files[prep.n_files++] = (PreparedFile) { .entry = rd->entry[i], .st = rd->st[i],
                                                              .kind = rd->kind[i], .meta = metas[i] };
                metas[i] = (ModuleMeta) {};
                STRV_FOREACH(d, prep.files[prep.n_files - 1].meta.depends)
                        round_add(next, *d, depth + 1);
        }
        for (size_t i = 0; i < rd->n; i++) {
                free(rd->image[i]);
                module_meta_done(&metas[i]);
        }
        return r;
}

/* The wanted modules and what they need: the tree's index first (all of a
 * round's files in one parser child for a container's tree), then each
 * parsed file's own depends=, round by round. */
static int prepare_modules(const char *const *wanted) {
        _cleanup_free_ Round *rd = calloc(1, sizeof(*rd)), *next = calloc(1, sizeof(*next));
        int r;

        if (!rd || !next)
                return -ENOMEM;
        tried.n = 0;
        for (size_t i = 0; wanted[i]; i++) {
                _cleanup_free_ char *name = strdup(wanted[i]);

                if (!name)
                        return -ENOMEM;
                module_name_normalize(name);
                round_add(rd, name, 0);
        }
        for (unsigned depth = 0; rd->n > 0 && depth <= PREPARE_MAX_DEPTH; depth++) {
                Round *t;

                *next = (Round) {};
                r = round_run(rd, next, depth);
                if (r < 0)
                        return r;
                t = rd, rd = next, next = t;
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
                r = module_tree_open_at_confined(fd, prep.key.in_root, display, &prep.tree, NULL);
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
        r = prepare_modules(wanted);
        if (r < 0) {
                load_prepared_drop();
                return r;
        }
        return 0;
}

int load_prepared_tree(const LoadOptions *opts, const char *display, ModuleTree **ret, const char **ret_why) {
        _cleanup_close_ int fd = -EBADF;
        LoadPrepKey now;

        if (prep.tree && key_now(opts, display, &now, &fd) >= 0 && load_prepared_same(&prep.key, &now)) {
                prep.taken = prep.tree;
                *ret = TAKE_PTR(prep.tree);
                return 0;
        }
        load_prepared_drop();
        if (opts->in_root)
                return module_tree_open_at_confined(opts->root_fd, opts->module_tree, display, ret, ret_why);
        return module_tree_open_confined(display, ret, ret_why);
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
