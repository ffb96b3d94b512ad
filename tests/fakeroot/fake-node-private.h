/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the parts of the fake node share (fake-node*.c only; users include
 * fake-node.h): the node itself and the file primitives it is written with.
 * Hidden, because the library is linked into LD_PRELOAD shims: a global
 * "write_file" there would stand in for any same-named symbol of the
 * program under test. Paths ending in _rel are relative to the node's root.
 * All calls return 0 or -errno unless said otherwise. */

#include <stdbool.h>
#include <stdlib.h>

#include "fake-node.h"

#define FNODE_INTERNAL __attribute__((visibility("hidden")))

struct FakeNode {
        char *root;
        int next_minor; /* -1 until counted: building 1,024 namespaces stays linear */
};

static inline void freep_(void *p) {
        free(*(void **) p);
}
#define _auto_free_ __attribute__((cleanup(freep_)))

/* "<root>/<fmt...>" (malloc'd), or NULL. */
FNODE_INTERNAL __attribute__((format(printf, 2, 3)))
char *fnode_rpath(const FakeNode *n, const char *fmt, ...);
FNODE_INTERNAL int fnode_mkdir_p(const char *path);
/* fopen() mode: "we" replaces, "ae" appends. */
FNODE_INTERNAL int fnode_write_file_mode(const char *path, const char *content, const char *mode);
/* Replaces path atomically (a temporary file renamed over it). */
FNODE_INTERNAL int fnode_write_file(const char *path, const char *content);
/* fnode_write_file() of "<root>/<fmt...>". */
FNODE_INTERNAL __attribute__((format(printf, 3, 4)))
int fnode_writef(const FakeNode *n, const char *content, const char *fmt, ...);
/* The whole file (malloc'd; "" when empty). */
FNODE_INTERNAL int fnode_read_file(const char *path, char **ret);
/* The first line of a file, without its newline. */
FNODE_INTERNAL int fnode_read_line_rel(const FakeNode *n, const char *rel, char **ret);
FNODE_INTERNAL bool fnode_exists_rel(const FakeNode *n, const char *rel);
FNODE_INTERNAL int fnode_symlink_rel(const FakeNode *n, const char *target_rel, const char *link_rel);
/* The entries of a directory whose names start with prefix (0 when the
 * directory does not exist), or -errno. */
FNODE_INTERNAL int fnode_count_entries(const FakeNode *n, const char *rel, const char *prefix);
/* Sorted names of a directory, without dot files; an empty list when it
 * does not exist. Free with fake_strv_free. */
FNODE_INTERNAL int fnode_list_entries(const char *path, char ***ret);
FNODE_INTERNAL int fnode_rm_rf(const char *path);

/* "<major>:<minor>" of a block device, from sys/class/block/<dev>/dev
 * (fake-node-nvme.c). */
/* The directory of controller nvme<ctrl>, relative to the root: where
 * sys/class/nvme/nvme<ctrl> points, or a PCIe one's place when it does not
 * exist yet (malloc'd, or NULL). */
FNODE_INTERNAL char *fnode_ctrl_dir_rel(FakeNode *n, unsigned ctrl);
/* The device nodes a module brings and takes away (nvme_fabrics:
 * dev/nvme-fabrics, its misc device), as it is loaded (added) or removed
 * (fake-node-fabrics.c). */
FNODE_INTERNAL int fnode_module_devices(FakeNode *n, const char *module, bool added);
FNODE_INTERNAL int fnode_block_devno(FakeNode *n, const char *dev, char **ret);
