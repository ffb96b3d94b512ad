/* SPDX-License-Identifier: Apache-2.0 */
#include <string.h>

#include "container/driver-env.h"
#include "util/macro.h"

const char *const driver_env_keys[] = {
        "ENABLE_NFSRDMA",
        "UNLOAD_STORAGE_MODULES",
        "RESTORE_DRIVER_ON_POD_TERMINATION",
        NULL,
};

const char *driver_env_get(char *const *env, const char *key) {
        size_t n = strlen(key);

        for (char *const *i = env; i && *i; i++)
                if (strneq(*i, key, n) && (*i)[n] == '=')
                        return *i + n + 1;
        return NULL;
}

static EnvFlag flag(char *const *env, const char *key) {
        const char *v = driver_env_get(env, key);

        if (!v)
                return ENV_FLAG_UNSET;
        return streq(v, "true") ? ENV_FLAG_TRUE : ENV_FLAG_FALSE;
}

const char *env_flag_to_string(EnvFlag f) {
        switch (f) {
        case ENV_FLAG_TRUE: return "true";
        case ENV_FLAG_FALSE: return "false";
        default: return "unset";
        }
}

DriverEnvDecision driver_env_decide(char *const *env, TreeBuild tree) {
        DriverEnvDecision d = {
                .enable_nfsrdma = flag(env, "ENABLE_NFSRDMA"),
                .unload_storage_modules = flag(env, "UNLOAD_STORAGE_MODULES"),
                .restore_on_termination = flag(env, "RESTORE_DRIVER_ON_POD_TERMINATION"),
        };

        /* The Go entrypoint would refuse to start at its next restart. */
        d.nvme_rdma_allowed = d.unload_storage_modules == ENV_FLAG_TRUE;

        if (d.enable_nfsrdma == ENV_FLAG_TRUE) {
                d.build_ruled_out = false;
        } else if (tree == TREE_BUILD_PRESENT) {
                /* Only a precompiled image has a build before compiling anything. */
                d.build_ruled_out = false;
                d.assumed = "the container's tree already holds an NVMe build: taken as a precompiled image, "
                            "which always carries mlnx-nvme whatever ENABLE_NFSRDMA says";
        } else if (tree == TREE_BUILD_ABSENT) {
                d.build_ruled_out = true;
                d.assumed = "no NVMe build in the container's tree yet: taken as a sources build, which "
                            "compiles mlnx-nvme only with ENABLE_NFSRDMA=true";
        } else {
                /* Cannot see the tree: do not rule out what may come; the load
                 * at the ready file says whether it did. */
                d.build_ruled_out = false;
                d.assumed = "the container's tree could not be read: assumed an NVMe build may come; the load "
                            "at the ready file decides";
        }
        if (d.restore_on_termination == ENV_FLAG_UNSET && !d.assumed)
                d.assumed = "RESTORE_DRIVER_ON_POD_TERMINATION unset: the container's own default (false) applies";
        return d;
}
