/* SPDX-License-Identifier: Apache-2.0 */
#pragma once
/* A load from a driver container's tree, prepared before the node goes
 * driverless: when the in-tree stack is removed at the container's ready
 * file, its tree is complete already, and reading it (modules.dep, each
 * module file of the stack, their modinfo) after the removal is most of
 * what makes the driverless window longer than a bare rmmod + insmod.
 *
 * The preparation only reads: the tree's index, and for the modules asked
 * for and their dependencies in that tree, each file's bytes, kind and
 * modinfo. What depends on the kernel's state (which modules are loaded,
 * the order of the steps that follow from it) and every check is left to
 * the load itself, which takes the prepared tree and each prepared file
 * only while they are still the ones read (load_prepared_same()), and reads
 * afresh what is not. One preparation per process, held until the next
 * load takes or drops it. */
#include <stdbool.h>
#include <sys/stat.h>

#include "actions/module-elf.h"
#include "actions/module-tree.h"
#include "actions/stack-load.h"
#include "actions/tree-files.h"

/* What a prepared tree was read from. */
typedef struct LoadPrepKey {
        struct stat root; /* the directory the tree resolves in (the container's root, or the tree) */
        const char *in_root; /* the tree's path inside it */
        const char *dir;     /* the tree as seen from the host */
        TreeFiles files;
} LoadPrepKey;

/* Pure: the tree prepared as was is still the one asked for as now: the same
 * root directory (device, inode: another container's root is another
 * directory), the same path in it, and its index files unchanged. */
bool load_prepared_same(const LoadPrepKey *was, const LoadPrepKey *now);

/* Prepares what stack_load(opts) will read from the tree opts asks for
 * (opts->module_tree set; the host's own tree is host-tree-warm.h's).
 * Replaces any earlier preparation. 0, or -errno with nothing prepared
 * (the load then reads everything itself). */
int load_prepare(const LoadOptions *opts);

/* The name in messages of the tree opts asks for (opts->module_tree set):
 * "(container root)/<path>" inside a root, else the path through host_path().
 * 0 or -errno. */
int load_tree_display(const LoadOptions *opts, char **ret);

/* For stack_load(): the tree opts asks for, the prepared one when
 * load_prepared_same(), else opened now (confined: it is not the host's,
 * module-tree.h). 0 with *ret, or -errno; -EIO with *ret_why (static) when
 * the parser child could not read its index. */
int load_prepared_tree(const LoadOptions *opts, const char *display, ModuleTree **ret, const char **ret_why);

/* For stack_load(): the kind and modinfo of e's file in tree t when it was
 * prepared from the file now open as fd (device, inode, size, modification
 * time unchanged). 1 with *ret_kind and *ret_meta (handed over), 0 when it
 * must be read, -errno. */
int load_prepared_file(const ModuleTree *t, const ModuleTreeEntry *e, int fd, ModuleImageKind *ret_kind,
                       ModuleMeta *ret_meta);

/* The same, left for the load's own read of it: the modinfo prepared for
 * the file now open as fd, or NULL when it must be read. */
const ModuleMeta *load_prepared_peek(const ModuleTree *t, const ModuleTreeEntry *e, int fd);

/* Frees whatever the preparation still holds. */
void load_prepared_drop(void);
