/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What is true now, as the state table needs it (SwapContext): the stack
 * through NodeOps, the ready file, the configuration, the followed driver
 * container. Read by the manager before each step and by the swap's files
 * that must know the stack now; it decides nothing. */

#include <stdbool.h>

#include "config/daemon-config.h"
#include "swap/swap-follow.h"
#include "swap/swap-machine.h"
#include "swap/swap-snapshot.h"
#include "swap/swap-state.h"

/* What the context is read from besides the node (the manager hands it
 * over: manager_context_inputs()). */
typedef struct SwapContextInputs {
        const Config *config;
        const SwapFollow *follow;
        const SwapMachine *swap;
        bool ready_present;       /* what the ready file's watch last saw */
} SwapContextInputs;

/* -errno, logged, when the stack cannot be read. */
int swap_read_context(const SwapContextInputs *in, const SwapNodeView *node, SwapContext *ret);
/* What the core remembers follows what the context found: an earlier
 * container's build that is no longer loaded is forgotten (taken out, or
 * never there). The caller of swap_read_context() calls it: reading decides
 * nothing. */
void swap_context_noted(SwapFollow *f, const SwapContext *ctx);
/* The stack modules to load or restore: the configuration's, else those
 * loaded before the unload; NULL for the library's default. */
char *const *swap_modules_wanted(const Config *c, const SwapMachine *s);
