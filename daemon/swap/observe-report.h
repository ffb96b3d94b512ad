/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What an observing node tells (Mode=observe): each rehearsed
 * action as a journal entry of its own MESSAGE_ID ("would unload", "would
 * refuse", "would load", "would restore"), the same line in the record's
 * `would` (state file, status document, `oc swapguard status`), and the mode
 * at start, with what a switch of mode found. */

#include "node/node-ops.h"
#include "swap/swap-follow.h"
#include "swap/swap-machine.h"
#include "publish/state-file.h"

void observe_report_would_unload(SwapMachine *s, const SwapFollow *f, const char *build, char *const *removed);
/* The line of the record for a refused unload in observe (the entries are
 * swap-report.c's, with their own MESSAGE_ID in observe). */
void observe_report_would_refuse(SwapMachine *s, const char *blockers);
void observe_report_would_load(SwapMachine *s, const SwapFollow *f, const NodeLoadResult *l, const char *tree);
void observe_report_would_restore(SwapMachine *s, const SwapFollow *f, const NodeLoadResult *l);
/* At start, once resuming is decided: the mode, and a switch from the mode
 * of the instance that wrote `previous` (NULL: none). */
void observe_report_start(SwapMachine *s, SwapMode now, const StateFile *previous, SwapState resuming);
