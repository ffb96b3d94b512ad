/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Before a swap: does the build about to be loaded have a transport module
 * for every fabrics connection of the node? A driver container whose tree
 * has no nvme_tcp while the node has NVMe/TCP connections must not be
 * swapped to at all (the daemon's `no-build`, the CLI's refusal of
 * `load --from`): the unload would drop connections nothing could bring
 * back. The transports are stack members (nvme_stack_modules), so, as in
 * stack_load(), only the given tree counts, never the host's. */

#include "actions/stack-load.h"
#include "actions/module-tree.h"
#include "nvme/fabrics-topology.h"

/* The transport modules the connections of t need that the tree of opts
 * (opened exactly as stack_load() opens it: opts->module_tree, in_root and
 * root_fd; NULL or no module_tree: the host's /lib/modules/<release>) does
 * not have, sorted: a strv, empty when it has them all. A module built into
 * the kernel (the tree's modules.builtin) is there. 0, -EINVAL (a transport
 * we know no module for), -errno opening the tree (-ENOENT: no such tree);
 * *ret untouched on failure. */
int fabrics_transports_missing(const FabricsTopology *t, const LoadOptions *opts, char ***ret);

/* The same against a tree already open. Pure apart from the tree. */
int fabrics_transports_missing_in(const FabricsTopology *t, const ModuleTree *tree, char ***ret);
