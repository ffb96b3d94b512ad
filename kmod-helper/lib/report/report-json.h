/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The machine-readable face of every CLI command (`--json`), also what the
 * daemon embeds in its state file. Pure: builds json-c objects from results
 * already computed; the caller prints them. Field names are a contract:
 *   status: {"modules":[{"name","loaded","origin","refcnt","holders",
 *            "refs_beyond_holders","initstate","taint","srcversion",
 *            "holds_mlx_compat","gds_hooks"}],
 *            "namespaces":[{"name","in_use","users":[usage...],"size_bytes",
 *            "multipath","nsid","serial","subsystem_nqn","partitions"}],
 *            "inventory":{"source","subsystems":[{"name","nqn","controllers":
 *              [{"name","transport","address","serial","model","state"}],
 *              "namespaces":[{"name","nsid","size_bytes","multipath","controller"}]}]}}
 *   usage:  {"kind","device","where","what","pid","description"}
 *   check:  {"in_use","devices":[{"name","namespace","partition","in_use",
 *            "users"}],"usages":[usage...],"notes":[..]}
 *   plan:   {"order":[..],"blockers":[..],"in_use","users":[usage...],"can_run"}
 *   unload: {"outcome","dry_run","planned","removed","restored","plan_blockers",
 *            "failed_module","failed_errno","failed_error","restore_failed_module",
 *            "restore_failed_errno","restore_failed_reason","in_use","users"}
 *   load:   {"ok","tree","release","modules":[{"name","path","already_loaded"}],
 *            "failed_module","failed_errno","failed_error","failed_reason",
 *            "rolled_back"}
 * Absent values are JSON null, never missing keys.
 * The status documents (status, usage, inventory, check, plan):
 * report-json.c; the actions' results (unload, load): report-json-result.c. */

#include <stdbool.h>
#include <stdio.h>

#include "actions/stack-load.h"
#include "actions/stack-unload.h"
#include "modules/module-stack.h"
#include "modules/removal-plan.h"
#include "nvme/nvme-block-devices.h"
#include "nvme/nvme-inventory.h"
#include "usage/usage-check.h"

struct json_object;

/* All: 0 or -ENOMEM; *ret untouched on failure. usage may be NULL (not checked). */
/* stack: the stack m was read in (which build a shared module is depends on
 * who uses it); "role" and "build" say what the module is to the stack. */
int report_module_json(const ModuleStack *stack, const ModuleInfo *m, struct json_object **ret);
int report_usage_json(const Usage *u, struct json_object **ret);
/* inventory may be NULL too (no "inventory" key then is not allowed: null). */
int report_status_json(const ModuleStack *stack, const UsageReport *usage, const NvmeInventory *inventory,
                       struct json_object **ret);
int report_inventory_json(const NvmeInventory *inv, struct json_object **ret);
int report_check_json(const UsageReport *usage, struct json_object **ret);
int report_plan_json(const RemovalPlan *plan, const UsageReport *usage, struct json_object **ret);
/* Adds "users": [usage...] to o: usage's usages, of device d only (a whole
 * namespace's include its partitions'), or all for a NULL d; [] for a NULL
 * usage. */
int report_json_add_users(struct json_object *o, const UsageReport *usage, const NvmeBlockDevice *d);
int report_unload_json(const UnloadResult *r, bool dry_run, struct json_object **ret);
int report_load_json(const LoadResult *r, struct json_object **ret);

/* Pretty-printed, one object, newline-terminated. 0 or -errno. */
int report_json_print(struct json_object *o, FILE *f);
