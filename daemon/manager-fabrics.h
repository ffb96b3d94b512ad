/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The manager's side of nvme-swapguard-fabrics.service's answers
 * (swap/swap-fabrics.h): the watch of its result, and the blocked unload
 * fed again through the dispatch once a capture answered (at once) or got
 * no answer (a minute later: the unload asks again). */

#include "manager-data.h"
#include "swap/swap-fabrics.h"
#include "watch/fabrics-result.h"

/* Without it (the watch cannot be had) the daemon does not drop fabrics
 * connections: the unload stays waiting for a capture that cannot come. */
void manager_fabrics_setup(Manager *m);
/* An answer of the unit (or its absence: res NULL, error says why), as the
 * watch hands it over: taken by the swap (swap_fabrics_result()), the
 * record saved, STATUS= said and what was wanted meanwhile asked for; what
 * the blocked unload does next is the caller's (a re-check now or later). */
SwapFabricsNext manager_fabrics_answered(Manager *m, const char *verb, const FabricsResult *res, const char *error);
