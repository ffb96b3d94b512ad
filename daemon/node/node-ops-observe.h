/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Mode=observe: NodeOps that answer every read for real and
 * turn every change into a rehearsal. Wraps another NodeOps (the real one
 * in the daemon, a scripted one in tests):
 *   read_stack, check_usage, scan_namespaces, nvme_driverless, check_gds
 *                 passed through: observe sees the node as enforce would;
 *   unload        the inner unload_plan (the library's dry run: plan and
 *                 usage check), outcome WOULD_REMOVE or REFUSED with the
 *                 blockers; nothing removed;
 *   load_from     the inner load_plan (the modules looked up in the
 *                 container's tree), result `would`; nothing inserted;
 *   restore       `would`, nothing inserted, except on a node with no stack
 *                 module loaded at all (see node-ops-observe.c);
 *   pin           never (both pin ops NULL), and `observe` set so the
 *                 manager sets no reload block.
 * The inner ops' unload, load_from and pin are never called, save that one
 * restore: tests/unit/daemon/test-node-ops-observe.c holds that. */

#include "node/node-ops.h"

/* A new NodeOps over `inner` (borrowed: must outlive it). */
int node_ops_observe_new(const NodeOps *inner, NodeOps **ret);
NodeOps *node_ops_observe_free(NodeOps *ops);
DEFINE_TRIVIAL_CLEANUP_FUNC(NodeOps *, node_ops_observe_free);
