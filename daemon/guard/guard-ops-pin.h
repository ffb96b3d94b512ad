/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* GuardOps' pin operations with the guard library (usage-pin.h): one pin
 * per process, held in guard-ops-pin.c. Linked into the binary with
 * guard-ops-real.c, not into libswapguardd. */

#include "guard/guard-ops.h"

int guard_pin_refresh_real(void *userdata, GuardPin **ret);
void guard_pin_release_real(void *userdata);
