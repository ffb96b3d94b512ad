/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* A module tree without modules.dep, walked (module-tree.h): every file
 * whose name is a module's (nvme.ko, nvme-core.ko.xz), below the tree,
 * inside its root, symlinks not followed, at most TREE_WALK_MAX_DEPTH
 * directories deep; and each one's dependencies, its modinfo `depends`.
 * A compressed file's cannot be read without decompressing it: none here
 * (the load reads the host's then, and refuses a container's). A file that
 * cannot be read, or is no module, is left out.
 *
 * The modinfo of a tree that is not the host's is parsed in the parser
 * child (sandbox/module-meta-job.h), in batches of at most
 * MODULE_META_BATCH_MAX files and TREE_WALK_BATCH_BYTES: one fork per
 * batch, not per file. */

#include <stdbool.h>
#include <stddef.h>

/* A walk never needs to go deeper than kernel/drivers/nvme/host/...; the
 * bound keeps a hostile tree from costing more than it should. */
#define TREE_WALK_MAX_DEPTH 12
/* The parent holds a batch twice (read, and in the memfd). */
#define TREE_WALK_BATCH_BYTES (16u * 1024u * 1024u)

typedef struct TreeWalkFile {
        char *name;     /* from the file name: module_name_valid() */
        char *relpath;  /* relative to the tree */
        char **depends; /* NULL: the file cannot be read, or is no module */
} TreeWalkFile;

/* The files below in_root (a relative path inside root_fd, "" for the
 * root itself), in the walk's order. 0 with *ret and *ret_n; -errno when
 * the tree itself cannot be opened; -EIO when the parser child failed
 * (confined), with *ret_why (static, optional) saying what happened;
 * -ENOMEM. */
int tree_walk(int root_fd, const char *in_root, bool confined, TreeWalkFile **ret, size_t *ret_n,
              const char **ret_why);
void tree_walk_free(TreeWalkFile *files, size_t n);
