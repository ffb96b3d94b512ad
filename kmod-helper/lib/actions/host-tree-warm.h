/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The host's own module tree (/lib/modules/<release>), opened ahead of a
 * load. Every load opens it (a container's build takes its gaps and
 * modules.builtin from it): libkmod's context, modules.dep (4,000+ lines)
 * and modules.builtin parsed, a visible part of the time between the
 * in-tree stack's removal and NVIDIA's build live when it runs there (under
 * CPU contention most of all). A caller about to take the node's driver
 * away warms it first; the load that follows takes the warmed tree when
 * its files are still the ones parsed, or opens it afresh.
 *
 * One tree per process, held from the warm until the next take. */

#include "actions/module-tree.h"
#include "actions/tree-files.h"

/* Opens the running kernel's host tree now and keeps it. 0 or -errno (the
 * load then opens it itself: nothing is lost but the time). */
int host_tree_warm(void);
/* The host tree of release, display its name in messages: the warmed one,
 * handed over, when it is that release and its modules.dep and
 * modules.builtin are the files it was parsed from (device, inode, size,
 * modification time), else opened now. 0 with *ret, or -errno. */
int host_tree_take(const char *release, const char *display, ModuleTree **ret);
/* The host tree of release opened now, never the warmed one: resolved
 * inside the host's root (the host's own files). With ret_files (may be
 * NULL), its index files as they were before the read. 0 or -errno. */
int host_tree_open(const char *release, const char *display, ModuleTree **ret, TreeFiles *ret_files);
/* Frees a warmed tree nobody took. */
void host_tree_warm_drop(void);
