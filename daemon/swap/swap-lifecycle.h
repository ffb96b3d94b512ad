/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The driver container's whole life, the manager's part: what a
 * newly followed container means (its environment, a build from before it,
 * a ready file older than it), the modules its build may bring, the stack
 * broken behind our back, and the GDS hook generation after a swap. The
 * decisions themselves are pure (driver-env.c, container-time.c,
 * stack-health.c, swap-state.c); this file gathers their inputs and reports. */

#include "swap/manager-data.h"
#include "swap/stack-health.h"

/* The followed container ended: remembers the ready file there now (its
 * own, left behind after a crash) so that it never counts for a later one. */
void lifecycle_container_exited(Manager *m);
/* A container is now followed (or the record it is judged against was just
 * read at start): decide and report, once per container. */
void lifecycle_container_followed(Manager *m);
/* Whether the ready file at the configured path is there now (asked of the
 * disk) and counts for the followed container; sets m->follow.ready_stale. Without
 * a container, being there is enough. */
bool lifecycle_ready_counts(Manager *m);
/* The stack modules to load from the container: the wanted ones, without
 * nvme_rdma unless UNLOAD_STORAGE_MODULES=true. *ret NULL: the default. */
int lifecycle_modules_to_load(Manager *m, char ***ret);
/* Before a load: the container's tree has no build of nvme (or nvme_core).
 * Reports and rules the build out; true when so. */
bool lifecycle_tree_lacks_build(Manager *m, const char *tree);
/* A load failed with ENOPKG (the library: a stack module not in the tree). */
void lifecycle_load_no_build(Manager *m, const char *module, const char *reason);
/* The driver container's part of entering a state, each one effect of the
 * step's plan (swap-plan.h): the loaded build is the followed container's;
 * the GDS hooks and nvidia_fs's match said; the build's record forgotten
 * once none is loaded; no-build and repairing said. */
void lifecycle_note_build_container(SwapMachine *s, const SwapFollow *f);
void lifecycle_report_gds(Manager *m);
void lifecycle_check_build_gone(SwapMachine *s, const SwapContext *ctx);
void lifecycle_report_no_build(const char *container_id, SwapEvent ev);
void lifecycle_report_repairing(SwapMachine *s, const char *container_id, SwapEvent ev);
/* The unload of an earlier build was refused: why the new container's
 * openibd restart will fail. */
void lifecycle_report_earlier_blocked(Manager *m, const NodeBlockers *b);
void lifecycle_report_stale_ready(Manager *m);
/* Judges the stack now, at once: reports a broken stack and returns
 * SWAP_EVENT_STACK_BROKEN for the manager to dispatch, else
 * _SWAP_EVENT_INVALID. (The daemon judges through stack-judge.c, which
 * waits for someone else's load in progress and confirms first.) */
SwapEvent lifecycle_stack_settled(Manager *m);
/* The journal's STACK_BROKEN entry and the record's message for h. */
void lifecycle_report_broken(Manager *m, StackHealth h);
/* nvidia_fs was loaded or removed: the GDS generation check again (swapped). */
void lifecycle_nvfs_changed(Manager *m);
void lifecycle_free(Manager *m);
