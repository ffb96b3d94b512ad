/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The host's module index (/lib/modules/<release>/modules.dep), its stack
 * members' lines only, as node-ops-real.c's stack reads want it: what each
 * member depends on. Parsed once and kept while the file stays the same
 * (path, inode, size, mtime): it changes only when depmod runs, and every
 * stack read asks for it. Part of the daemon's binary, like node-ops-real.c:
 * it calls the library. */

#include "actions/module-tree.h"

/* Borrowed: valid until the next call. NULL when it cannot be read: the
 * health check then judges no dependency. */
const ModuleTree *host_index(void);
