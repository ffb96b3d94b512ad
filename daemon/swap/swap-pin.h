/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The manager's use of the pin (pin-holder.h): match it to the namespaces'
 * use now, say what changed in the journal (pin-report.h) and, when what
 * is pinned changed, in STATUS= and the state file too. Called at
 * start (before READY=1), on every change the usage watch sees, and right
 * after each of our own unloads (which let go of the pin when they find
 * every namespace free). */

#include "swap/swap-follow.h"
#include "swap/swap-loop.h"
#include "swap/swap-machine.h"

typedef struct PinHolder PinHolder;
typedef struct UsageWatch UsageWatch;

/* pin and usage are the manager's (it creates them at start); the record's
 * pins change in s, saved through the loop's table. */
void swap_pin_refresh(PinHolder *pin, UsageWatch *usage, SwapMachine *s, const SwapFollow *f, const SwapLoop *loop);
