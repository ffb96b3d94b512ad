/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the swap tells operators in the journal: one entry per step taken
 * and per state entered (MESSAGE_ID + SWAPGUARD_* fields, see report.h and
 * catalog/). A report reads the owners it names (the container from the
 * followed one, else the record's) and changes nothing: what the same
 * moment learned goes into the record through swap-note.h, a call of its
 * own that the caller makes beside the report. */

#include <stdbool.h>

#include "node/node-ops.h"
#include "swap/swap-follow.h"
#include "swap/swap-machine.h"

/* The namespaces compared by swap_note_namespaces() (the record's
 * missing_namespaces): one entry when all are back, one per namespace still
 * missing. */
void swap_report_namespaces(const SwapMachine *s, const SwapFollow *f, const char *message_id, const char *what);
/* The modules of the stack (read with their GDS hooks) loaded now, with
 * their origin and GDS hooks. */
void swap_report_swapped(const SwapMachine *s, const SwapFollow *f, const NodeStack *stack, const char *by);
/* One entry per blocker (swap_note_blockers() says whether they are new).
 * build: what the refused unload would have taken out, worded as for
 * swap_report_unloaded(). */
void swap_report_blockers(const SwapMachine *s, const SwapFollow *f, SwapMode mode, const char *build,
                          const NodeBlockers *b);
/* build: what was taken out, as stack_build() words it ("in-tree", ...);
 * kept: the build's shared modules that stayed ("nvme_auth: held by
 * nvmet"), each a warning: a driver container's openibd restart cannot
 * remove mlx_compat while they hold it. */
void swap_report_unloaded(const SwapMachine *s, const SwapFollow *f, const char *build, char *const *removed,
                          char *const *kept);
void swap_report_reload(const SwapMachine *s, const SwapFollow *f);
/* What a load from the container's tree did, one line: the modules that
 * came from that tree, those the host's tree gave (dependencies outside the
 * stack, t10_pi) and those already loaded (mlx_compat, by openibd). NULL
 * without memory. */
char *swap_load_describe(const NodeLoadResult *l, const char *tree);
/* That line, said (swap_note_loaded() keeps what came from the tree). */
void swap_report_loaded(const NodeLoadResult *l, const char *tree);
/* The failure swap_note_failure() set (the "why" of FAILED). */
void swap_report_failure(const SwapMachine *s, const SwapFollow *f, const char *module);
/* The one line of a transition ("State a -> b (event)"), first, before
 * anything entering the state does. */
void swap_report_transition(SwapState old, SwapState now, SwapEvent ev);
/* The reports of entering a state, each one effect of the step's plan
 * (swap-plan.h), carried out by the manager in the plan's order. */
void swap_report_container_seen(const SwapMachine *s, const SwapFollow *f);
/* restored: ev is restore-done; the reason said is what started the
 * restore. Not for a rehearsed restore: observe's "would restore" said it. */
void swap_report_restored(const SwapMachine *s, const SwapFollow *f, SwapEvent ev);
/* A stop while the stack was unloaded restored it (or failed to; restored,
 * swap_note_stop_restored() keeps it). */
void swap_report_stop_restored(const SwapMachine *s, const char *container_id, bool restored);
/* Failed with no action having said why: the failure swap_note_gave_up()
 * set. */
void swap_report_gave_up(const SwapMachine *s, const SwapFollow *f);
