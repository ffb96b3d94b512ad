/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* An index of one module tree (/lib/modules/<release> of the host, or of a
 * driver container seen from the host): module name -> .ko path and the
 * modules it depends on. Built from the tree's modules.dep when there is
 * one (the text file: modules.dep.bin is not needed), otherwise by walking
 * the tree for *.ko files and reading their `depends` from modinfo. When a
 * module appears more than once, updates/ wins over extra/, which wins over
 * everything else (depmod's usual search order on RHEL and Debian).
 * The index model: module-tree.c; reading a tree from disk into it (the
 * module_tree_open*() functions, a module file, libkmod's modinfo):
 * module-tree-read.c. */

#include <stdbool.h>
#include <stddef.h>

#include "actions/modules-dep-text.h"
#include "util/macro.h"

struct kmod_ctx;

typedef struct ModuleTreeEntry {
        char *name;     /* kernel spelling: nvme_core */
        char *path;     /* the .ko as seen from the host (the tree's dir + relpath): for
                           messages and for libkmod on the host's own tree only */
        char *relpath;  /* relative to the tree; never absolute, never a ".." component */
        char **depends; /* NULL-terminated module names; never NULL */
        int rank;       /* 0 updates/, 1 extra/, 2 anything else: lower wins */
} ModuleTreeEntry;

typedef struct ModuleTree {
        char *dir;            /* as seen from the host: for messages */
        bool has_fds;         /* root_fd is ours (a calloc'd tree in tests has none) */
        int root_fd;          /* every file of the tree is resolved inside this root */
        char *in_root;        /* the tree's path inside root_fd ("" when the tree is the root) */
        struct kmod_ctx *ctx; /* kmod_new(dir) with no configuration files */
        bool from_modules_dep;
        bool confined;        /* not the host's own tree (a driver container's): its
                                 index and its files' modinfo are parsed in the parser
                                 child (sandbox/modules-dep-job.h, module-meta-job.h) */
        char **builtin;       /* modules.builtin, as module names; never NULL once opened */
        ModuleTreeEntry *entries;
        size_t n_entries;
} ModuleTree;

/* dir is an openable path (already through host_path()), and the root of
 * its own resolution: nothing it holds can name a file outside it.
 * -ENOTDIR when it is not a directory; 0 or -errno; *ret untouched on failure. */
int module_tree_open(const char *dir, ModuleTree **ret);
/* The same for a tree inside a root directory fd (a driver container's
 * root, opened through its pidfd): in_root is the tree's path inside that
 * root (lib/modules/<release>), resolved with the root as "/", so that the
 * container's own absolute symlinks mean its own files. root_fd is
 * duplicated; display is the host path for messages. */
int module_tree_open_at(int root_fd, const char *in_root, const char *display, ModuleTree **ret);
/* The same for a tree that is not the host's own (a driver container's,
 * a tree the CLI is pointed at): its index (modules.dep, modules.builtin)
 * and, without modules.dep, each file's modinfo are parsed in the parser
 * child, and the tree is marked confined so that the load parses its files
 * there too. A child that fails (killed, past its deadline, a reply
 * refused) makes the tree unreadable: -EIO, with *ret_why (static,
 * optional) saying what happened. */
int module_tree_open_confined(const char *dir, ModuleTree **ret, const char **ret_why);
int module_tree_open_at_confined(int root_fd, const char *in_root, const char *display, ModuleTree **ret,
                                 const char **ret_why);

/* Opens a module file of the tree (see module-file.h): 0 with *ret_fd and
 * *ret_size, or -errno (-EXDEV: it resolves outside the root). */
int module_tree_open_module(const ModuleTree *t, const ModuleTreeEntry *e, int *ret_fd, size_t *ret_size);
ModuleTree *module_tree_free(ModuleTree *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(ModuleTree *, module_tree_free);
const ModuleTreeEntry *module_tree_find(const ModuleTree *t, const char *name);


/* The host's own compressed modules (RHEL 9 and Debian 6.12 ship .ko.xz):
 * name, vermagic and depends through libkmod, which decompresses them by
 * path. Only for the host's tree: a container's compressed file is refused
 * before (load-plan.c). 0, -EBADMSG (no valid name), -ENOMEM, -errno. */
struct ModuleMeta;
int module_tree_meta_libkmod(const ModuleTree *t, const ModuleTreeEntry *e, struct ModuleMeta *ret);
/* Whether the tree's modules.builtin lists the module (t10_pi, crc64_rocksoft
 * built into 6.12): it is in the kernel, not a file to load. */
bool module_tree_builtin(const ModuleTree *t, const char *name);

/* Pure: adds one module to t. Takes name and depends in every case; relpath
 * (relative to t->dir) is copied. unique: an entry of the same name already
 * there stays or gives way by rank, at its place; otherwise the caller
 * settles duplicates once with module_tree_settle_duplicates() (looking
 * each name up is quadratic over a whole index). 0 or -ENOMEM. */
int module_tree_add_entry(ModuleTree *t, char *name, const char *relpath, char **depends, bool unique);
/* Pure: one entry per name, the best ranked (the earliest of those), at the
 * place of the name's first entry. 0 or -ENOMEM. */
int module_tree_settle_duplicates(ModuleTree *t);

/* Pure: adds the entries of a modules.dep text to t (paths relative to
 * t->dir, or absolute /lib/modules/<release>/... as old depmods wrote them).
 * Malformed lines, and lines naming a path with a ".." component or another
 * absolute path, are skipped. 0 or -ENOMEM. */
int module_tree_parse_modules_dep(ModuleTree *t, const char *text);
