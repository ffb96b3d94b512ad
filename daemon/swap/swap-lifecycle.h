/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The driver container's whole life, the swap's part: what a
 * newly followed container means (its environment, a build from before it,
 * a ready file older than it), the modules its build may bring, the stack
 * broken behind our back, and the GDS hook generation after a swap. The
 * decisions themselves are pure (driver-env.c, container-time.c,
 * stack-health.c, swap-state.c); this file gathers their inputs and reports.
 * Each function takes the owners it reads (const) or writes; what spans
 * other files' owners too (NVMe-oF's check of a new container, the
 * record's save) the manager composes (manager-lifecycle.c). */

#include <stdbool.h>

#include "config/daemon-config.h"
#include "container/driver-env.h"
#include "node/node-ops.h"
#include "swap/stack-health.h"
#include "swap/swap-context.h"
#include "swap/swap-follow.h"
#include "swap/swap-loop.h"
#include "swap/swap-machine.h"
#include "swap/swap-snapshot.h"

/* The followed container ended: remembers the ready file there now (its
 * own, left behind after a crash) so that it never counts for a later one. */
void lifecycle_container_exited(SwapFollow *f, const Config *c);
/* A container is now followed (or the record it is judged against was just
 * read at start): its pod's end starts anew, whether the build loaded is an
 * earlier one (said), and whether its ready file counts (returned: the
 * manager keeps it). No container followed: nothing, false. */
bool lifecycle_container_followed(const SwapMachine *s, SwapFollow *f, const Config *c, const SwapNodeView *node);
/* ... then, once per container, what its environment decides (said, and
 * noted in the record): 1 when decided now, with *ret_tree its module tree
 * (openable; NULL when unknown) and *ret_build what that holds, for the
 * checks that follow it (NVMe-oF's transports, UnloadAt=auto's moment);
 * 0 when decided before (or no container: nothing more to do). */
int lifecycle_container_env(SwapMachine *s, SwapFollow *f, char **ret_tree, TreeBuild *ret_build);
/* Whether the ready file at the configured path is there now (asked of the
 * disk) and counts for the followed container; sets f->ready_stale. Without
 * a container, being there is enough. */
bool lifecycle_ready_counts(SwapFollow *f, const Config *c);
/* The stack modules to load from the container: the wanted ones, without
 * nvme_rdma unless UNLOAD_STORAGE_MODULES=true (said). *ret NULL: the default. */
int lifecycle_modules_to_load(const SwapMachine *s, const SwapFollow *f, const Config *c, char ***ret);
/* Before a load: the container's tree has no build of nvme (or nvme_core).
 * Reports and rules the build out; true when so. */
bool lifecycle_tree_lacks_build(SwapMachine *s, SwapFollow *f, const Config *c, const char *tree);
/* A load failed with ENOPKG (the library: a stack module not in the tree):
 * said, the build ruled out, the record's message. */
void lifecycle_load_no_build(SwapMachine *s, SwapFollow *f, const char *module, const char *reason);
/* The driver container's part of entering a state, each one effect of the
 * step's plan (swap-plan.h): the loaded build is the followed container's;
 * the GDS hooks and nvidia_fs's match said (and kept in the record); the
 * build's record forgotten once none is loaded; no-build and repairing said. */
void lifecycle_note_build_container(SwapMachine *s, const SwapFollow *f);
void lifecycle_report_gds(SwapMachine *s, const SwapFollow *f, const Config *c, const SwapNodeView *node);
void lifecycle_check_build_gone(SwapMachine *s, const SwapContext *ctx);
void lifecycle_report_no_build(const char *container_id, SwapEvent ev);
void lifecycle_report_repairing(SwapMachine *s, const char *container_id, SwapEvent ev);
/* The unload of an earlier build was refused: why the new container's
 * openibd restart will fail. */
void lifecycle_report_earlier_blocked(const SwapMachine *s, const SwapFollow *f, const NodeBlockers *b);
/* The ready file predates the followed container: said, and the record's message. */
void lifecycle_report_stale_ready(SwapMachine *s, const SwapFollow *f, const Config *c);
/* The journal's STACK_BROKEN entry and the record's message for h. (The
 * daemon judges the stack through stack-judge.c, which waits for someone
 * else's load in progress and confirms first.) */
void lifecycle_report_broken(SwapMachine *s, const SwapFollow *f, StackHealth h);
/* nvidia_fs was loaded or removed: while a build is loaded, the GDS
 * generation said again (lifecycle_report_gds()) and true: the caller saves
 * the record (news for it). */
bool lifecycle_nvfs_changed(SwapMachine *s, const SwapFollow *f, const Config *c, const SwapNodeView *node);
void lifecycle_free(SwapFollow *f, const SwapLoop *loop);
