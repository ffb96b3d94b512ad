/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Mode=observe: GuardOps that answer every read for real and
 * turn every change into a rehearsal. Wraps another GuardOps (the real one
 * in the daemon, a scripted one in tests):
 *   read_stack, check_usage, scan_namespaces, nvme_driverless, check_gds
 *                 passed through: observe sees the node as enforce would;
 *   unload        the inner unload_plan (the library's dry run: plan and
 *                 usage check), outcome WOULD_REMOVE or REFUSED with the
 *                 blockers; nothing removed;
 *   load_from     the inner load_plan (the modules looked up in the
 *                 container's tree), result `would`; nothing inserted;
 *   restore       `would`, nothing inserted, except on a node with no stack
 *                 module loaded at all (see guard-ops-observe.c);
 *   pin           never (both pin ops NULL), and `observe` set so the
 *                 manager writes no /run/modprobe.d file.
 * The inner ops' unload, load_from and pin are never called, save that one
 * restore: tests/unit/daemon/test-guard-ops-observe.c holds that. */

#include "guard/guard-ops.h"

/* A new GuardOps over `inner` (borrowed: must outlive it). */
int guard_ops_observe_new(const GuardOps *inner, GuardOps **ret);
GuardOps *guard_ops_observe_free(GuardOps *ops);
DEFINE_TRIVIAL_CLEANUP_FUNC(GuardOps *, guard_ops_observe_free);
