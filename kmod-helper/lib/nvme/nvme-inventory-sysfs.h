/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* One source of the inventory (the other: nvme-inventory-libnvme.h). It
 * builds a whole inventory or returns -errno (*ret untouched); it does not
 * choose: nvme_inventory_read() (nvme-inventory.h) does. */

#include "nvme/nvme-inventory-model.h"

/* Our own reading of /sys/class/nvme-subsystem and /sys/class/nvme through
 * host-root, whatever the root (what nvme_inventory_read uses under a test
 * root). */
int nvme_inventory_read_sysfs(NvmeInventory **ret);
