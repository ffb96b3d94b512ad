/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* `load --from DIR` that never leaves the node without its driver: when the
 * load fails (the kernel refuses NVIDIA's build, a file is missing, the
 * deadline passes), what the load inserted is removed again (the library's
 * rollback) and the in-tree stack is loaded from the host's tree, as the
 * daemon does and as `unload` puts back what it removed on failure. Said
 * in the report: why the load failed (on a kernel that loads only signed
 * modules, that and the remedies), and what the restore did. With
 * --no-restore the node is left as the failed load left it, and the report
 * says so. No restore either when the rollback stopped at a namespace in
 * use: some of the new build serves it, and taking it away is not ours. */

#include <stdbool.h>

#include "cli-fabrics.h"

/* Exit status of a failed load after which the in-tree stack is not back
 * (its restore failed, or a namespace in use kept part of the new build):
 * the node may have no working NVMe driver. 1 is a failure after which the
 * in-tree stack is loaded (or --no-restore was asked). */
#define EXIT_NOT_RESTORED 4

typedef struct LoadFallbackOptions {
        const char *program;   /* for messages on stderr */
        const char *from;      /* the tree to load (host path) */
        char **modules;        /* --module list, for the load and the restore; NULL: nvme */
        unsigned timeout_sec;  /* the load's deadline; 0: the library's default */
        bool json;
        bool no_restore;
        CliFabrics *fabrics;   /* the dropped connections: back after the load, or after the restore */
} LoadFallbackOptions;

/* Runs the load (and the restore), prints the report; returns the exit
 * status: 0 loaded, 1 failed (the in-tree stack back, or --no-restore),
 * EXIT_NOT_RESTORED failed and not restored. */
int load_with_fallback(const LoadFallbackOptions *o);
