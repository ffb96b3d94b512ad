/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The human-readable face of every CLI command: what an operator reads on a
 * node. Every line that reports a problem names the device, mount point,
 * process or module concerned. Writes to the stream given (stdout in the
 * CLI, a memstream in tests). All: 0 or -errno. usage may be NULL. */

#include <stdbool.h>
#include <stdio.h>

#include "actions/stack-load.h"
#include "actions/stack-unload.h"
#include "modules/module-stack.h"
#include "modules/removal-plan.h"
#include "nvme/nvme-inventory.h"
#include "usage/usage-check.h"

int report_status_text(const ModuleStack *stack, const UsageReport *usage, const NvmeInventory *inventory,
                       FILE *f);
int report_check_text(const UsageReport *usage, FILE *f);
int report_plan_text(const RemovalPlan *plan, const UsageReport *usage, FILE *f);
int report_unload_text(const UnloadResult *r, bool dry_run, FILE *f);
int report_load_text(const LoadResult *r, FILE *f);
