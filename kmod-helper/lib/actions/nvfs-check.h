/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Does the loaded nvidia-fs ask for the GDS hook generation the loaded nvme
 * exports (gds-nvidia-fs #87)? nvidia-fs picks the name it asks for
 * (nvme_v1_ or nvme_v2_register_nvfs_dma_ops) at its own build time; when
 * nvme exports the other one, GDS silently runs in compatibility mode.
 * The module file of nvidia_fs is looked for in the host's tree, then in the
 * trees the caller names (the GPU Operator's nvidia-fs-ctr container root,
 * /proc/<pid>/root/lib/modules/<release>, found through the CRI-O store). */

#include <stdbool.h>

#include "modules/kallsyms-hooks.h"
#include "util/macro.h"

typedef struct NvfsCheck {
        bool loaded;          /* /sys/module/nvidia_fs exists */
        char *ko_path;        /* the nvidia_fs module file found; NULL when none */
        char **wanted;        /* generations it asks for ("v1"); NULL when unknown */
        char *exported;       /* nvme's generations in kallsyms ("v1,v2"); NULL when none */
        GdsMatch match;
        int read_error;       /* positive errno when the file was found but not read */
} NvfsCheck;

/* trees: host paths (through host_path() here) of more module trees to
 * look in, NULL-terminated, may be NULL. 0 with *ret, or -errno (-ENOMEM). */
int nvfs_check(char *const *trees, NvfsCheck **ret);
/* The same when nvme's generations are known already (a stack read with
 * its GDS hooks, the daemon's step): exported (NULL: none) is taken as
 * what kallsyms says, which is not read again. */
int nvfs_check_exported(char *const *trees, const char *exported, NvfsCheck **ret);
NvfsCheck *nvfs_check_free(NvfsCheck *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(NvfsCheck *, nvfs_check_free);
/* One line for an operator; the remedy when the generations differ. malloc'd. */
char *nvfs_check_describe(const NvfsCheck *c);
