/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* A driver container's module index (its tree's modules.dep and
 * modules.builtin, module-tree.h), parsed in the parser child
 * (parser-sandbox.h): the text is the image's. The parent opens and reads
 * both files inside the container's root (one sealed memfd, sandbox-bundle.h:
 * one fork for both); the child runs the same parsers the host's tree goes
 * through (modules_dep_parse_text(), module_builtin_parse())
 * and sends, in order:
 *   - per module of modules.dep: its path relative to the tree (an old
 *     depmod's absolute /lib/modules/<release>/ prefix taken off), then
 *     each dependency's module name;
 *   - per line of modules.builtin: the module name.
 * The parent refuses the whole reply when a path is not a relative one
 * without "." or ".." components (module_relpath_valid()), or does not name
 * a module file with a valid name, when a dependency or a built-in module
 * is not a module name, when there are more of them than the bounds below;
 * then it adds the modules itself and settles their duplicates as for any
 * tree (updates/ over extra/ over the rest). */

#include <stddef.h>
#include <stdint.h>

#include "util/macro.h"

/* A distribution tree has about 4,000 modules (Debian 6.12: 4,230), each
 * with a few dependencies: the bounds are far above, and they bound what a
 * hostile index costs the daemon. */
#define MODULE_INDEX_ENTRIES_MAX 32768U
#define MODULE_INDEX_DEPENDS_MAX (8U * MODULE_INDEX_ENTRIES_MAX)
#define MODULE_INDEX_BUILTIN_MAX 16384U
#define MODULE_INDEX_RELPATH_MAX 1024U
/* The reply of a 4,230-module tree is about 300 KiB. */
#define MODULE_INDEX_REPLY_MAX (8U * 1024U * 1024U)

/* The record keys. */
enum {
        MODULE_INDEX_REPLY_ENTRY = 1,
        MODULE_INDEX_REPLY_DEPEND,
        MODULE_INDEX_REPLY_BUILTIN,
};

typedef struct ModuleIndexEntry {
        char *relpath;  /* module_relpath_valid() */
        char *name;     /* from the path, module_name_valid() */
        char **depends; /* module names; never NULL */
} ModuleIndexEntry;

typedef struct ModuleIndex {
        ModuleIndexEntry *entries; /* in the file's order, duplicates kept */
        size_t n_entries;
        char **builtin;            /* module names; never NULL */
} ModuleIndex;

ModuleIndex *module_index_free(ModuleIndex *x);
DEFINE_TRIVIAL_CLEANUP_FUNC(ModuleIndex *, module_index_free);

/* Parses the texts in one child: dep (modules.dep) and builtin
 * (modules.builtin), each NULL when the tree has none. 0 with *ret; -EIO
 * when the child failed (killed, past its deadline, a reply refused, an
 * error of its own: E2BIG for an index over the bounds), with *ret_why
 * (static) saying what happened; -ENOMEM (the parent's own). */
int module_index_parse_confined(const char *dep, size_t dep_size, const char *builtin, size_t builtin_size,
                                ModuleIndex **ret, const char **ret_why);

/* The parent's decoding of a reply, for the tests and the fuzzer: 0, -EIO
 * with *ret_why for a reply refused or an error of the child's own,
 * -ENOMEM. */
int module_index_reply_decode(const uint8_t *buf, size_t len, ModuleIndex **ret, const char **ret_why);
