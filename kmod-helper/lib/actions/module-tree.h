/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* An index of one module tree (/lib/modules/<release> of the host, or of a
 * driver container seen from the host): module name -> .ko path and the
 * modules it depends on. Built from the tree's modules.dep when there is
 * one (the text file: modules.dep.bin is not needed), otherwise by walking
 * the tree for *.ko files and reading their `depends` from modinfo. When a
 * module appears more than once, updates/ wins over extra/, which wins over
 * everything else (depmod's usual search order on RHEL and Debian). */

#include <stdbool.h>
#include <stddef.h>

#include "util/macro.h"

struct kmod_ctx;

typedef struct ModuleTreeEntry {
        char *name;     /* kernel spelling: nvme_core */
        char *path;     /* openable path of the .ko (the tree's dir + relative path) */
        char **depends; /* NULL-terminated module names; never NULL */
        int rank;       /* 0 updates/, 1 extra/, 2 anything else: lower wins */
} ModuleTreeEntry;

typedef struct ModuleTree {
        char *dir;
        struct kmod_ctx *ctx; /* kmod_new(dir) with no configuration files */
        bool from_modules_dep;
        ModuleTreeEntry *entries;
        size_t n_entries;
} ModuleTree;

/* dir is an openable path (already through host_path()). -ENOENT when it is
 * not a directory; 0 or -errno; *ret untouched on failure. */
int module_tree_open(const char *dir, ModuleTree **ret);
ModuleTree *module_tree_free(ModuleTree *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(ModuleTree *, module_tree_free);
const ModuleTreeEntry *module_tree_find(const ModuleTree *t, const char *name);

/* The `depends` of a .ko's modinfo, '-' spelled '_'. A container's depmod
 * leaves out what its tree lacks (t10_pi, ...); the modinfo never does. */
int module_tree_modinfo_depends(const ModuleTree *t, const char *path, char ***ret);

/* Pure: adds the entries of a modules.dep text to t (paths relative to
 * t->dir, or absolute /lib/modules/<release>/... as old depmods wrote them).
 * Malformed lines are skipped. 0 or -ENOMEM. */
int module_tree_parse_modules_dep(ModuleTree *t, const char *text);

/* Pure: the module name of a .ko path ("kernel/x/nvme-core.ko.xz" -> "nvme_core").
 * 0, -EINVAL (not a module file name) or -ENOMEM. */
int module_name_from_path(const char *path, char **ret);
