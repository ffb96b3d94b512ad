/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "actions/tree-files.h"
#include "util/macro.h"

int tree_files_stat(int root_fd, const char *in_root, TreeFiles *ret) {
        static const char *const names[] = { "modules.dep", "modules.builtin" };
        struct stat *st[] = { &ret->dep, &ret->builtin };

        *ret = (TreeFiles) {};
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                _cleanup_free_ char *p = NULL;

                if (asprintf(&p, "%s%s%s", in_root, *in_root ? "/" : "", names[i]) < 0)
                        return -ENOMEM;
                if (fstatat(root_fd, p, st[i], 0) < 0 && errno != ENOENT)
                        return -errno;
        }
        return 0;
}

/* The change time too: a writer can put the modification time back
 * (utimensat), never the change time, and a container's files are not
 * trusted to keep still. */
bool stat_unchanged(const struct stat *a, const struct stat *b) {
        return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
               a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
               a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

bool tree_files_unchanged(const TreeFiles *a, const TreeFiles *b) {
        return stat_unchanged(&a->dep, &b->dep) && stat_unchanged(&a->builtin, &b->builtin);
}
