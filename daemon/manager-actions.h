/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The manager runs the action a step's plan returns: the module actions
 * through swap_actions_run() with the owners each reads and changes, the
 * reports the table asks for (a reload seen, a stale ready file) itself;
 * then it notes and tells what came of a module action (swap-outcome.h)
 * and asks for what that wants next (a connect of the NVMe-oF
 * connections). */

#include "manager-data.h"

/* Returns the event of the action's outcome (the next step's), or
 * _SWAP_EVENT_INVALID when there is none. */
SwapEvent manager_act(Manager *m, SwapAction a);
