/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What is true now, as the state table needs it (SwapContext): the stack
 * through NodeOps, the ready file, the configuration, the followed driver
 * container. Read by the manager before each step and by the swap's files
 * that must know the stack now; it decides nothing. */

#include "swap/manager-data.h"

/* -errno, logged, when the stack cannot be read. */
int swap_read_context(Manager *m, SwapContext *ret);
/* What the core remembers follows what the context found: an earlier
 * container's build that is no longer loaded is forgotten (taken out, or
 * never there). The caller of swap_read_context() calls it: reading decides
 * nothing. */
void swap_context_noted(SwapFollow *f, const SwapContext *ctx);
/* The stack modules to load or restore: the configuration's, else those
 * loaded before the unload; NULL for the library's default. */
char *const *swap_modules_wanted(const Config *c, const SwapMachine *s);
