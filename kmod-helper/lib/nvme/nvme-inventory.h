/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The NVMe topology of the node as plain data: subsystems, their controllers
 * and namespaces. On the real host it comes from libnvme 1.3
 * (nvme_scan_topology); the libnvme tree is freed before returning, because
 * libnvme 1.3 keeps every namespace device open until nvme_free_tree() and
 * those descriptors would pin the modules we may want to remove. libnvme 1.3
 * cannot be pointed at a fake sysfs, so under a test root (host_root_is_real()
 * false) the same inventory is built from our own reading of
 * /sys/class/nvme-subsystem and /sys/class/nvme; `source` says which. */

#include "nvme/nvme-inventory-model.h"

/* 0 or -errno; no NVMe at all (modules not loaded) is an empty inventory.
 * *ret untouched on failure. */
int nvme_inventory_read(NvmeInventory **ret);
