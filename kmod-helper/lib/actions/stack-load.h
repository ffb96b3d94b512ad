/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Loads the NVMe host stack from a module tree: NVIDIA's build from the
 * driver container's root (/proc/<pid>/root/lib/modules/<release>, RPM
 * extra/ or DKMS updates/ layout), or the in-tree build from the host's
 * /lib/modules/<release> (restore). Dependencies missing from the given tree
 * (t10_pi, crc64_rocksoft, ...) come from the host tree. A module whose
 * vermagic does not match the running kernel is refused before any load. */

#include <errno.h>

typedef struct LoadOptions {
        const char *module_tree; /* NULL: the host's /lib/modules/<release> */
        char **modules;          /* NULL-terminated list of stack modules wanted;
                                    NULL: nvme (and through it nvme_core) */
} LoadOptions;

typedef struct LoadedModule {
        char *name;
        char *path;         /* the .ko loaded, as seen from the host */
        bool already_loaded;
} LoadedModule;

typedef struct LoadResult {
        LoadedModule *modules; /* in load order, dependencies first */
        size_t n_modules;
        char *failed_module;   /* NULL on success */
        int failed_errno;      /* positive errno: ENOEXEC for a vermagic mismatch,
                                  EKEYREJECTED for a rejected signature, ENOENT when
                                  the tree lacks the module, ... */
        char *failed_reason;   /* one line for the operator */
} LoadResult;

/* 0 with *ret (check failed_module); -errno only when the request itself was
 * impossible (no such tree, no memory). */
int stack_load(const LoadOptions *opts, LoadResult **ret);
LoadResult *load_result_free(LoadResult *r);
