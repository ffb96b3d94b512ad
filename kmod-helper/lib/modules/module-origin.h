/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The words for a loaded module of the NVMe stack: which build it is
 * (origin, build) and why it is part of what we read (role), with their
 * spellings in reports and the state file. Pure. */

#include <errno.h>
#include <stdbool.h>

typedef enum ModuleOrigin {
        MODULE_ORIGIN_ABSENT,      /* not loaded */
        MODULE_ORIGIN_IN_TREE,     /* the kernel's own build: no O taint */
        MODULE_ORIGIN_OUT_OF_TREE, /* taint O, but no sign of NVIDIA's build */
        MODULE_ORIGIN_NVIDIA,      /* holds mlx_compat or exports the GDS hooks */
        _MODULE_ORIGIN_MAX,
        _MODULE_ORIGIN_INVALID = -EINVAL,
} ModuleOrigin;

/* Why a module is part of what we read. */
typedef enum ModuleRole {
        MODULE_ROLE_MEMBER,  /* one of nvme_stack_modules: swapped as a whole */
        MODULE_ROLE_HOLDER,  /* a loaded module holding a member (nvme_loop, nvmet_tcp) */
        MODULE_ROLE_SHARED,  /* a loaded module a member depends on and others may use too
                                (nvme_auth, nvme_keyring on 6.7+; t10_pi on 6.1): found in
                                the live graph, kept unless a build replaces it */
        _MODULE_ROLE_MAX,
        _MODULE_ROLE_INVALID = -EINVAL,
} ModuleRole;

/* Which build a module is, for the operator: a shared module the in-tree
 * stack does not use any more is the host's code under NVIDIA's stack. */
typedef enum ModuleBuild {
        MODULE_BUILD_ABSENT,
        MODULE_BUILD_IN_TREE,          /* the kernel's own, the stack in-tree too */
        MODULE_BUILD_CONTAINER,        /* out-of-tree: the driver container's */
        MODULE_BUILD_SHARED_FROM_HOST, /* shared, in-tree, under an out-of-tree stack */
        _MODULE_BUILD_MAX,
        _MODULE_BUILD_INVALID = -EINVAL,
} ModuleBuild;

const char *module_origin_to_string(ModuleOrigin o);
/* "member", "holder", "shared". */
const char *module_role_to_string(ModuleRole r);
/* "absent", "in-tree", "container", "shared-from-host". */
const char *module_build_to_string(ModuleBuild b);
ModuleBuild module_build_from_string(const char *s);
ModuleOrigin module_origin_from_string(const char *s);

/* Pure: which build a loaded module is, from what sysfs and kallsyms said. */
ModuleOrigin module_origin_classify(bool loaded, const char *taint, bool depends_on_mlx_compat,
                                    bool has_gds_hooks);
