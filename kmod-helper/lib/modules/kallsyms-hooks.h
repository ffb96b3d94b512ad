/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

#include <stddef.h>

/* Which loaded modules carry NVIDIA's GPUDirect Storage DMA hooks: they
 * export `<prefix>_register_nvfs_dma_ops` (nvme_v1_, nvme_v2_, nvme_rdma_v1_,
 * ...), which /proc/kallsyms lists with the owning module in brackets:
 *   ffffffffc0a01230 T nvme_v1_register_nvfs_dma_ops	[nvme]
 * The in-tree build has no such symbol. */

/* Pure: if this one kallsyms line is a GDS hook of a module, returns 1 and
 * the module name (malloc'd) in *ret_module; 0 when not; -ENOMEM. */
int kallsyms_line_gds_module(const char *line, char **ret_module);

/* Pure: every module with a hook in a whole kallsyms text; a sorted strv
 * without duplicates (possibly empty). 0 or -ENOMEM. */
int kallsyms_gds_modules_parse(const char *text, char ***ret);

/* Streams host_path("/proc/kallsyms") once (it has ~200k lines: never read
 * whole). An absent or unreadable kallsyms gives an empty list, as the hooks
 * are then simply unknown. 0 or -errno (-ENOMEM, read errors). */
int kallsyms_gds_modules_read(char ***ret);

/* ---- Which generation of the hooks (gds-nvidia-fs #87) ----------------
 * The hook names carry a generation: nvme_v1_register_nvfs_dma_ops (DOCA up
 * to 25.10), nvme_v2_... (DOCA 26.01 always; from 26.04 when the kernel has
 * blk-mq-dma.h). nvidia-fs decides at its own build time which name it asks
 * for (__symbol_get in nvfs-mod.c); when the two differ, GDS silently runs
 * in compatibility mode. */

/* Pure: the generation in a hook symbol name: "v1" for
 * "nvme_v1_register_nvfs_dma_ops", "" for a name without one; NULL when it
 * is not a hook name. Static storage is not used: writes into gen (8 bytes). */
const char *gds_hook_generation(const char *symbol, size_t len, char gen[static 8]);

/* Pure: every hook of a kallsyms text as "<module>:<generation>" ("nvme:v1",
 * "nvme_rdma:v1"; "<module>:" when the name has none), sorted, unique. */
int kallsyms_gds_hooks_parse(const char *text, char ***ret);
/* The same, streaming host_path("/proc/kallsyms"); unreadable: empty. */
int kallsyms_gds_hooks_read(char ***ret);
/* Pure: the generations of one module in such a list ("v1", "v1,v2"),
 * malloc'd; NULL in *ret when the module has no hook. 0 or -ENOMEM. */
int gds_hooks_generations_of(char *const *hooks, const char *module, char **ret);

/* Pure: the generations of nvme's hooks a module file asks for, from the
 * names "nvme_v<N>_register_nvfs_dma_ops" anywhere in its bytes (an
 * undefined symbol, or the string nvidia-fs hands __symbol_get). Sorted
 * unique "v1", "v2"; empty when none. 0 or -ENOMEM. */
int gds_wanted_generations_scan(const char *buf, size_t len, char ***ret);
/* Reads an uncompressed .ko (an openable path) and scans it; -EPROTONOSUPPORT
 * for a compressed one (.ko.xz, .ko.zst, .ko.gz), -EFBIG past 256 MiB. */
int gds_wanted_generations_read(const char *path, char ***ret);

typedef enum GdsMatch {
        GDS_MATCH_UNKNOWN,     /* nvidia_fs not loaded, or its file not found/readable */
        GDS_MATCH_SAME,        /* nvidia-fs asks for a generation nvme exports */
        GDS_MATCH_DIFFERENT,   /* it asks for others: compatibility mode */
        GDS_MATCH_NO_HOOKS,    /* nvme exports no hook at all */
} GdsMatch;

/* Pure: exported "v1,v2"-style list (NULL: none) against wanted strv. */
GdsMatch gds_generations_match(const char *exported, char *const *wanted);
const char *gds_match_to_string(GdsMatch m);
