/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* NodeOps' pin operations with the guard library (usage-pin.h): one pin
 * per process, held in node-ops-pin.c. Linked into the binary with
 * node-ops-real.c, not into libswapguardd. */

#include "node/node-ops.h"

int node_pin_refresh_real(void *userdata, NodePin **ret);
void node_pin_release_real(void *userdata);
