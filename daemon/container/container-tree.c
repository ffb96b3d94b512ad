/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "container/container-tree.h"
#include "util/macro.h"

/* Deeper than extra/mlnx-nvme/host/ or updates/dkms/: enough, and bounded
 * against a hostile tree. */
#define TREE_MAX_DEPTH 6

/* module in the kernel's spelling (nvme_core); files may say nvme-core.ko. */
static bool module_file_name(const char *file, const char *module) {
        static const char *const suffixes[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz" };
        size_t n = strlen(module);
        char name[256];

        snprintf(name, sizeof(name), "%s", file);
        for (char *c = name; *c; c++)
                if (*c == '-')
                        *c = '_';
        if (strncmp(name, module, n) != 0)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++)
                if (streq(name + n, suffixes[i]))
                        return true;
        return false;
}

/* 1 found, 0 not, -errno when the directory cannot be read. Walks by fd
 * with O_NOFOLLOW: a container's symlinks are not followed out of its tree. */
static int walk(int fd_in, const char *module, unsigned depth) {
        DIR *d;
        struct dirent *de;
        int r = 0;

        if (depth > TREE_MAX_DEPTH) {
                close(fd_in);
                return 0;
        }
        d = fdopendir(fd_in);
        if (!d) {
                r = -errno;
                close(fd_in);
                return r;
        }
        while (r == 0 && (de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                if (de->d_type == DT_REG && module_file_name(de->d_name, module))
                        r = 1;
                else if (de->d_type == DT_DIR) {
                        int fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

                        if (fd >= 0)
                                r = walk(fd, module, depth + 1) > 0;
                }
        }
        closedir(d);
        return r;
}

TreeBuild container_tree_build(const char *tree_dir, const char *module) {
        static const char *const roots[] = { "extra", "updates" };
        _cleanup_close_ int tree = open(tree_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        bool readable = false;

        if (tree < 0)
                return errno == ENOENT ? TREE_BUILD_ABSENT : TREE_BUILD_UNKNOWN;
        for (size_t i = 0; i < ELEMENTSOF(roots); i++) {
                int fd = openat(tree, roots[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), r;

                if (fd < 0) {
                        readable = readable || errno == ENOENT;
                        continue;
                }
                readable = true;
                r = walk(fd, module, 1);
                if (r > 0)
                        return TREE_BUILD_PRESENT;
        }
        return readable ? TREE_BUILD_ABSENT : TREE_BUILD_UNKNOWN;
}
