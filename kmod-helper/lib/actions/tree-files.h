/* SPDX-License-Identifier: Apache-2.0 */
#pragma once
/* What tells a module tree, or one of its files, parsed ahead of a load
 * from the same one at the load: a tree parsed before the node goes
 * driverless is only used if nothing it was read from changed since. */
#include <stdbool.h>
#include <sys/stat.h>

typedef struct TreeFiles {
        struct stat dep, builtin; /* st_ino 0: not there */
} TreeFiles;

/* The tree's index files (modules.dep, modules.builtin), stat()ed inside
 * root_fd as the tree reads them. A file that is not there counts as such
 * (a tree without modules.builtin). 0 or -errno. */
int tree_files_stat(int root_fd, const char *in_root, TreeFiles *ret);
/* Pure: the same file with the same contents as far as stat() tells
 * (device, inode, size, modification time; both absent counts as same). */
bool stat_unchanged(const struct stat *a, const struct stat *b);
bool tree_files_unchanged(const TreeFiles *a, const TreeFiles *b);
