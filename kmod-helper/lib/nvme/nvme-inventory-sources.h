/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The two sources of the inventory. Each builds a whole inventory or
 * returns -errno (*ret untouched); neither chooses: nvme_inventory_read()
 * (nvme-inventory.h) does. */

#include "nvme/nvme-inventory-model.h"

/* libnvme 1.3 (nvme_scan_topology), its tree freed before returning: it
 * keeps every namespace device open until then. Always the real /sys. */
int nvme_inventory_libnvme(NvmeInventory **ret);

/* Our own reading of /sys/class/nvme-subsystem and /sys/class/nvme through
 * host-root, whatever the root (what nvme_inventory_read uses under a test
 * root). */
int nvme_inventory_read_sysfs(NvmeInventory **ret);
