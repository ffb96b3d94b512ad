/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* One source of the inventory (the other: nvme-inventory-sysfs.h). It
 * builds a whole inventory or returns -errno (*ret untouched); it does not
 * choose: nvme_inventory_read() (nvme-inventory.h) does. */

#include "nvme/nvme-inventory-model.h"

/* libnvme 1.3 (nvme_scan_topology), its tree freed before returning: it
 * keeps every namespace device open until then. Always the real /sys. */
int nvme_inventory_libnvme(NvmeInventory **ret);
