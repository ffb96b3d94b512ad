/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the swap tells operators in the journal: one entry per step taken
 * and per state entered (MESSAGE_ID + SWAPGUARD_* fields, see report.h and
 * catalog/), each also kept as the record's last message. */

#include "swap/manager-data.h"
#include "util/macro.h"

/* Compares the namespaces now with those seen before the unload; one entry
 * when all are back, one per namespace still missing. */
void swap_report_namespaces(Manager *m, const char *message_id, const char *what);
/* The modules now loaded, with their origin and GDS hooks, then the namespaces. */
void swap_report_swapped(Manager *m, const char *by);
/* Records which build each loaded module is (the state file's module_builds). */
void swap_report_builds(Manager *m);
/* One entry per blocker, unless they are the same as last time. build:
 * what the refused unload would have taken out, worded as for
 * swap_report_unloaded(). */
void swap_report_blockers(Manager *m, const char *build, const NodeBlockers *b);
/* build: what was taken out, as stack_build() words it ("in-tree", ...);
 * kept: the build's shared modules that stayed ("nvme_auth: held by
 * nvmet"), each a warning: a driver container's openibd restart cannot
 * remove mlx_compat while they hold it. */
void swap_report_unloaded(Manager *m, const char *build, char *const *removed, char *const *kept);
void swap_report_reload(Manager *m);
/* What a load from the container's tree did, one line: the modules that
 * came from that tree, those the host's tree gave (dependencies outside the
 * stack, t10_pi) and those already loaded (mlx_compat, by openibd). NULL
 * without memory. */
char *swap_load_describe(const NodeLoadResult *l, const char *tree);
/* Also records, for the unload of this build, what came from the tree
 * (the state file's build_modules). */
void swap_report_loaded(Manager *m, const NodeLoadResult *l, const char *tree);
/* Sets the failure (the "why" of FAILED) and reports it. */
void swap_report_failure(Manager *m, const char *module, const char *fmt, ...) _printf_(3, 4);
/* The one line of a transition ("State a -> b (event)"), first, before
 * anything entering the state does. */
void swap_report_transition(SwapState old, SwapState now, SwapEvent ev);
/* The reports of entering a state, each one effect of the step's plan
 * (swap-plan.h), carried out by the manager in the plan's order. */
void swap_report_container_seen(Manager *m);
/* restored: ev is restore-done; the reason said is what started the restore. */
void swap_report_restored(Manager *m, SwapEvent ev);
/* A stop while the stack was unloaded restored it (or failed to). */
void swap_report_stop_restored(SwapMachine *s, const char *container_id, bool restored);
/* Failed with no action having said why. */
void swap_report_gave_up(Manager *m, SwapEvent ev);
