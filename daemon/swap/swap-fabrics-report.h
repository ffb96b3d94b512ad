/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the daemon tells of nvme-swapguard-fabrics.service's answers: one
 * journal entry per connection (structured fields, MESSAGE_IDs in
 * daemon/catalog), the record's "fabrics" list (state file, status
 * document) and STATUS='s NVMe-oF part. Never a secret: the answers hold
 * none. */

#include <stdbool.h>

#include "swap/manager-data.h"
#include "watch/fabrics-result.h"

/* Once per capture: the connections f names are dropped by the unload. */
void swap_fabrics_report_drop(Manager *m, const NodeFabrics *f);
/* The capture's connections become the record's list (pending). */
void swap_fabrics_record_captured(Manager *m, const FabricsResult *res);
/* A connect's answer merged into the record's list by identity and told;
 * quiet: only what is not back is told (a tidying connect). */
void swap_fabrics_record_connected(Manager *m, const FabricsResult *res, const char *after, bool quiet);
/* "NVMe-oF: 1 back, 1 pending (next try in 8 s), 0 lost", NULL when none. */
char *swap_fabrics_status(const SwapMachine *s);
