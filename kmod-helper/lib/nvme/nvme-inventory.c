/* SPDX-License-Identifier: Apache-2.0 */
#include "host/host-root.h"
#include "nvme/nvme-inventory-libnvme.h"
#include "nvme/nvme-inventory-sysfs.h"
#include "nvme/nvme-inventory.h"

int nvme_inventory_read(NvmeInventory **ret) {
        /* libnvme 1.3 always reads the real /sys: under a test root it would
         * describe this machine, not the fake one. */
        if (!host_root_is_real())
                return nvme_inventory_read_sysfs(ret);
        return nvme_inventory_libnvme(ret);
}
