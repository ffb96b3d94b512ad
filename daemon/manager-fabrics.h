/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The manager's side of nvme-swapguard-fabrics.service's answers
 * (swap/swap-fabrics.h): the watch of its result, and the blocked unload
 * fed again through the dispatch once a capture answered (at once) or got
 * no answer (a minute later: the unload asks again). */

#include "swap/manager-data.h"

/* Without it (the watch cannot be had) the daemon does not drop fabrics
 * connections: the unload stays waiting for a capture that cannot come. */
void manager_fabrics_setup(Manager *m);
