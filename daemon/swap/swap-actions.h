/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the swap does: reads the context the state table decides on, runs
 * the actions it returns through GuardOps (unload, re-check, load, restore)
 * and turns their outcomes into the events fed back to the table. */

#include "manager-internal.h"

/* What is true now (the stack through GuardOps, the ready file, the
 * configuration). -errno, logged, when the stack cannot be read. */
int swap_read_context(Manager *m, SwapContext *ret);
/* The stack modules to load or restore: the configuration's, else those
 * loaded before the unload; NULL for the library's default. */
char *const *swap_modules_wanted(const Manager *m);
/* Runs a; returns the event of its outcome, or _SWAP_EVENT_INVALID when
 * there is none to feed back. */
SwapEvent swap_actions_run(Manager *m, SwapAction a);
