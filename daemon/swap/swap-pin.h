/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The manager's use of the pin (pin-holder.h): match it to the namespaces'
 * use now, say what changed in the journal (pin-report.h) and, when what
 * is pinned changed, in STATUS= and the state file too. Called at
 * start (before READY=1), on every change the usage watch sees, and right
 * after each of our own unloads (which let go of the pin when they find
 * every namespace free). */

#include "swap/manager-data.h"

void swap_pin_refresh(Manager *m);
