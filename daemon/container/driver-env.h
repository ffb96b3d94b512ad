/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the driver container's environment (process.env of its OCI
 * config.json) says about the NVMe build it will give, as the doca-driver
 * container reads it (docs: FIELD-NOTES section 8; Mellanox/doca-driver-build
 * entrypoint.sh and the Go entrypoint; network-operator-docs doca-drivers.rst):
 *  - ENABLE_NFSRDMA: a sources build compiles mlnx-nvme only when "true"
 *    (otherwise --without-mlnx-nvme). Precompiled images always carry it.
 *  - UNLOAD_STORAGE_MODULES: unless "true", the Go entrypoint refuses to start
 *    (crash loop) while nvme_rdma (among other storage modules) is loaded.
 *  - RESTORE_DRIVER_ON_POD_TERMINATION: when "true", the container's stop runs
 *    `mlnxofedctl --alt-mods force-restart`, which takes NVIDIA's modules out
 *    (NVIDIA's nvme stack with them when nothing uses it). The container
 *    code defaults to false, the Network Operator's docs say true.
 * Pure: decides from the strings; the caller reads the file and the tree. */

#include <stdbool.h>

typedef enum EnvFlag {
        ENV_FLAG_UNSET,   /* not in the environment */
        ENV_FLAG_TRUE,    /* exactly "true", as the entrypoint compares */
        ENV_FLAG_FALSE,   /* any other value */
} EnvFlag;

typedef enum TreeBuild {
        TREE_BUILD_UNKNOWN, /* the container's tree could not be read */
        TREE_BUILD_ABSENT,  /* no nvme build in the container's tree (yet) */
        TREE_BUILD_PRESENT, /* extra/mlnx-nvme or updates/ has an nvme build already */
} TreeBuild;

typedef struct DriverEnvDecision {
        EnvFlag enable_nfsrdma;
        EnvFlag unload_storage_modules;
        EnvFlag restore_on_termination;
        bool build_ruled_out;     /* no NVMe build will come: do not unload for it */
        bool nvme_rdma_allowed;   /* load nvme_rdma only when true */
        const char *assumed;      /* what the environment could not tell and what was
                                     assumed; NULL when it told everything */
} DriverEnvDecision;

/* env: NULL-terminated "KEY=value" strings (may be NULL); tree: what the
 * container's module tree holds at the time of the decision. */
DriverEnvDecision driver_env_decide(char *const *env, TreeBuild tree);

/* The keys above, NULL-terminated: all of a container's environment the
 * daemon asks the parser child for. */
extern const char *const driver_env_keys[];

/* The value of key in a "KEY=value" list, NULL when absent. */
const char *driver_env_get(char *const *env, const char *key);
const char *env_flag_to_string(EnvFlag f);
