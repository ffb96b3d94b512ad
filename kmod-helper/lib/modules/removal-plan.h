/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The order in which the loaded stack can be removed without forcing:
 * every module after all modules that hold it (holders first, nvme_core
 * last), built from the live holders graph. Pure: works on a ModuleStack. */

#include "modules/module-stack.h"
#include "util/macro.h"

typedef struct RemovalPlan {
        char **order;    /* NULL-terminated; empty when nothing is loaded */
        char **blockers; /* NULL-terminated, human-readable: why this order cannot
                            run now (a module with references beyond its holders,
                            a module still coming or going, a holder cycle) */
} RemovalPlan;

/* 0 or -errno (-ENOMEM); *ret untouched on failure. */
int removal_plan_build(const ModuleStack *stack, RemovalPlan **ret);
RemovalPlan *removal_plan_free(RemovalPlan *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(RemovalPlan *, removal_plan_free);
