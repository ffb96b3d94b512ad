/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* UnloadAt=auto, the manager's part: gathers what unload-moment.c decides
 * on (the loaded stack, the container's environment, its openibd and its
 * entrypoint read from its own root), once per followed container, and says
 * in the journal which moment and why. */

#include "config/daemon-config.h"
#include "swap/swap-follow.h"
#include "swap/swap-machine.h"
#include "swap/swap-snapshot.h"

/* A container is now followed (its environment decided): under
 * UnloadAt=auto, decide its moment and report it. */
void swap_moment_decide(SwapFollow *f, SwapMachine *s, const Config *c, const SwapNodeView *node);
/* The moment the state machine uses: UnloadAt= itself unless auto; under
 * auto the followed container's (container-start until one is decided). */
UnloadAt swap_moment_unload_at(const Config *c, const SwapFollow *f);
