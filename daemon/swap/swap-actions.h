/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the swap does: runs the actions the state table returns through
 * NodeOps (unload, re-check, load, restore) and returns their outcomes as
 * the events the manager feeds back to the table. */

#include "swap/manager-data.h"

/* Runs a; returns the event of its outcome, or _SWAP_EVENT_INVALID when
 * there is none to feed back. */
SwapEvent swap_actions_run(Manager *m, SwapAction a);
