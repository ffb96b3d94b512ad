/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

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
