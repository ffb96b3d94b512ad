/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the daemon tells of nvme-swapguard-fabrics.service's answers: one
 * journal entry per connection (structured fields, MESSAGE_IDs in
 * daemon/catalog), the record's "fabrics" list (state file, status
 * document) and STATUS='s NVMe-oF part. Never a secret: the answers hold
 * none. */

#include <stdbool.h>

#include "swap/swap-follow.h"
#include "swap/swap-machine.h"
#include "watch/fabrics-result.h"

/* The connections f names are dropped by the unload (observe: would be);
 * tells only: that it was said once per capture is the caller's to keep
 * (SwapFabrics.drop_said). s and follow name the state and the container. */
void swap_fabrics_report_drop(const SwapMachine *s, const SwapFollow *follow, bool observe, const NodeFabrics *f);
/* The capture's connections become the record's list (pending); the
 * caller says the new list is not told yet. */
void swap_fabrics_record_captured(SwapMachine *s, const FabricsResult *res);
/* A connect's answer merged into the record's list by identity and told
 * (each connection as it is merged); quiet: only what is not back is told
 * (a tidying connect). */
void swap_fabrics_record_connected(SwapMachine *s, const SwapFollow *follow, const FabricsResult *res,
                                   const char *after, bool quiet);
/* "NVMe-oF: 1 back, 1 pending (next try in 8 s), 0 lost", NULL when none. */
char *swap_fabrics_status(const SwapMachine *s);
