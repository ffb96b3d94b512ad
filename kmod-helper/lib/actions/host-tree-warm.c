/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actions/host-tree-warm.h"
#include "actions/tree-files.h"
#include "host/host-kernel.h"
#include "host/host-root.h"
#include "util/macro.h"

static struct {
        char *release;
        TreeFiles files;
        ModuleTree *tree;
} warm;

/* Resolved inside the host's root (not inside the tree): RHEL's
 * weak-updates/ holds absolute symlinks to other releases' extra/ modules,
 * which are the host's own files. With ret_files, the index files as they
 * were before the tree read them (a change while it reads is then seen). */
int host_tree_open(const char *release, const char *display, ModuleTree **ret, TreeFiles *ret_files) {
        _cleanup_free_ char *root = NULL, *in_root = NULL;
        _cleanup_close_ int fd = -EBADF;
        int r;

        r = host_path("/", &root);
        if (r < 0)
                return r;
        if (asprintf(&in_root, "lib/modules/%s", release) < 0)
                return -ENOMEM;
        fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (ret_files) {
                r = tree_files_stat(fd, in_root, ret_files);
                if (r < 0)
                        return r;
        }
        return module_tree_open_at(fd, in_root, display, ret);
}

void host_tree_warm_drop(void) {
        module_tree_free(warm.tree);
        warm.tree = NULL;
        free(warm.release);
        warm.release = NULL;
}

int host_tree_warm(void) {
        _cleanup_free_ char *release = NULL, *display = NULL;
        TreeFiles now;
        int r;

        /* Still the files it was parsed from (an unload refused, then
         * tried again): kept as it is. */
        if (warm.tree && tree_files_stat(warm.tree->root_fd, warm.tree->in_root, &now) >= 0 &&
            tree_files_unchanged(&now, &warm.files))
                return 0;
        host_tree_warm_drop();
        r = host_kernel_release(&release);
        if (r < 0)
                return r;
        r = host_pathf(&display, "/lib/modules/%s", release);
        if (r < 0)
                return r;
        r = host_tree_open(release, display, &warm.tree, &warm.files);
        if (r < 0)
                return r;
        warm.release = TAKE_PTR(release);
        return 0;
}

int host_tree_take(const char *release, const char *display, ModuleTree **ret) {
        _cleanup_(module_tree_freep) ModuleTree *t = TAKE_PTR(warm.tree);
        _cleanup_free_ char *was = TAKE_PTR(warm.release);
        TreeFiles now;

        if (t && was && strcmp(was, release) == 0 && strcmp(t->dir, display) == 0 &&
            tree_files_stat(t->root_fd, t->in_root, &now) >= 0 && tree_files_unchanged(&now, &warm.files)) {
                *ret = TAKE_PTR(t);
                return 0;
        }
        return host_tree_open(release, display, ret, NULL);
}
