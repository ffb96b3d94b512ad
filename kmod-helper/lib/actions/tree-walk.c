/* SPDX-License-Identifier: Apache-2.0 */
/* A module tree without modules.dep, walked (tree-walk.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actions/module-elf.h"
#include "actions/module-file.h"
#include "actions/modules-dep-text.h"
#include "actions/tree-walk.h"
#include "sandbox/module-meta-job.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

typedef struct Walk {
        int root_fd;
        const char *in_root;
        TreeWalkFile *files;
        size_t n_files;
} Walk;

static int walk_path(const Walk *w, const char *relpath, char **ret) {
        if (asprintf(ret, "%s%s%s", w->in_root, w->in_root[0] && relpath[0] ? "/" : "", relpath) < 0)
                return -ENOMEM;
        return 0;
}

static int walk_file_depends(const Walk *w, const char *relpath, char ***ret) {
        _cleanup_free_ char *p = NULL, *image = NULL;
        _cleanup_close_ int fd = -EBADF;
        ModuleMeta meta = {};
        size_t size;
        int r;

        r = walk_path(w, relpath, &p);
        if (r >= 0)
                r = module_file_open(w->root_fd, p, MODULE_FILE_MAX, &fd, &size);
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

void tree_walk_free(TreeWalkFile *files, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(files[i].name);
                free(files[i].relpath);
                strv_free(files[i].depends);
        }
        free(files);
}

static int walk_defer(Walk *w, char *name, const char *relpath) {
        TreeWalkFile *n = reallocarray(w->files, w->n_files + 1, sizeof(*n));
        char *rel = strdup(relpath);

        if (!n || !rel) {
                free(name);
                free(rel);
                if (n)
                        w->files = n;
                return -ENOMEM;
        }
        w->files = n;
        w->files[w->n_files++] = (TreeWalkFile) { .name = name, .relpath = rel };
        return 0;
}

static int walk(Walk *w, const char *rel, unsigned depth);

static int walk_entry(Walk *w, const char *rel, const struct dirent *de, unsigned depth) {
        _cleanup_free_ char *sub = NULL, *name = NULL;

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
        return walk_defer(w, TAKE_PTR(name), sub);
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
        r = walk_path(w, rel, &p);
        if (r < 0)
                return r;
        r = module_dir_open(w->root_fd, p, &fd);
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
static int walk_read(const Walk *w, TreeWalkFile *f, char **ret_image, size_t *ret_size) {
        _cleanup_free_ char *p = NULL;
        _cleanup_close_ int fd = -EBADF;
        size_t size;
        int r;

        *ret_image = NULL;
        r = walk_path(w, f->relpath, &p);
        if (r >= 0)
                r = module_file_open(w->root_fd, p, MODULE_FILE_MAX, &fd, &size);
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

                r = walk_read(w, &w->files[i], &images[n], &size);
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

/* A confined walk's files, read in batches. */
static int walk_confined(Walk *w, const char **ret_why) {
        int r;

        for (size_t i = 0; i < w->n_files;) {
                size_t to = i;

                r = walk_batch(w, i, &to, ret_why);
                if (r < 0)
                        return r;
                i = to;
        }
        return 0;
}

int tree_walk(int root_fd, const char *in_root, bool confined, TreeWalkFile **ret, size_t *ret_n,
              const char **ret_why) {
        Walk w = { .root_fd = root_fd, .in_root = in_root };
        int r;

        r = walk(&w, "", 0);
        if (r >= 0 && confined)
                r = walk_confined(&w, ret_why);
        for (size_t i = 0; r >= 0 && !confined && i < w.n_files; i++) {
                r = walk_file_depends(&w, w.files[i].relpath, &w.files[i].depends);
                if (r == -ENOMEM)
                        break;
                r = 0; /* not a readable module: left out, a load would fail anyway */
        }
        if (r < 0) {
                tree_walk_free(w.files, w.n_files);
                return r;
        }
        *ret = w.files;
        *ret_n = w.n_files;
        return 0;
}
