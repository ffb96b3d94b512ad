/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Loads the NVMe host stack from a module tree: NVIDIA's build from the
 * driver container's root (/proc/<pid>/root/lib/modules/<release>, RPM
 * extra/ or DKMS updates/ layout), or the in-tree build from the host's
 * /lib/modules/<release> (restore). Dependencies missing from the given tree
 * (t10_pi, crc64_rocksoft, ...) come from the host tree. A module whose
 * vermagic does not match the running kernel is refused before any load.
 *
 * Order: the wanted modules and their dependencies are resolved first (the
 * given tree, then the host's), every vermagic is checked, then modules are
 * inserted dependencies first. A module already present (/sys/module/<m>,
 * read through host-root) is skipped. Loading stops at the first failed
 * insert; with rollback_on_failure the modules this call inserted are then
 * removed again, newest first, so that a restore that follows starts from
 * the state before the call (a half-loaded NVIDIA stack would make the
 * in-tree nvme fail against NVIDIA's nvme_core). Nothing is ever forced. */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/macro.h"

typedef struct LoadOptions {
        const char *module_tree; /* a host path (it goes through host_path(), like
                                    /proc/<pid>/root/lib/modules/<release>);
                                    NULL: the host's /lib/modules/<release> */
        char **modules;          /* NULL-terminated list of stack modules wanted;
                                    NULL: nvme (and through it nvme_core) */
        bool rollback_on_failure; /* see above; a restore leaves it off: some
                                     driver is better than none */
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
        char **rolled_back;    /* NULL-terminated: modules this call inserted and
                                  removed again after the failure */
        char *release;         /* the running kernel's release the tree was checked against */
        char *tree;            /* the tree loaded from, as opened */
} LoadResult;

/* 0 with *ret (check failed_module); -errno only when the request itself was
 * impossible (no such tree, no memory). */
int stack_load(const LoadOptions *opts, LoadResult **ret);
bool load_result_ok(const LoadResult *r);

LoadResult *load_result_free(LoadResult *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(LoadResult *, load_result_free);
