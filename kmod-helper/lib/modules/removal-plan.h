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
        char **shared;   /* NULL-terminated: the modules of `order` that are shared
                            modules of the out-of-tree build (module_shared_of_build):
                            they go with it, after every module that holds them */
        char **kept;     /* NULL-terminated, human-readable: shared modules of that
                            build that stay, and why ("nvme_auth: held by nvmet") */
} RemovalPlan;

/* What an unload takes out: the stack's members, the loaded modules that
 * hold them, and the shared modules of the out-of-tree build loaded over
 * them (module_shared_of_build(), with `recorded`: what the caller recorded
 * at load time as inserted from the container's tree; may be NULL). Such a
 * shared module that something outside the plan holds (nvmet), or uses
 * beyond its holders, stays and is named in `kept`: never a blocker of the
 * stack's own unload. The host's own shared modules are never planned.
 * 0 or -errno (-ENOMEM); *ret untouched on failure. */
int removal_plan_build_with(const ModuleStack *stack, char *const *recorded, RemovalPlan **ret);
/* removal_plan_build_with(stack, NULL, ret). */
int removal_plan_build(const ModuleStack *stack, RemovalPlan **ret);
RemovalPlan *removal_plan_free(RemovalPlan *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(RemovalPlan *, removal_plan_free);
