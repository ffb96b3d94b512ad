/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Builders shared by the two sources of the inventory (libnvme, sysfs).
 * Each appends one zeroed element and returns it, or NULL on ENOMEM; the
 * caller fills it with malloc'd strings that the inventory then owns. */

#include "nvme/nvme-inventory.h"

NvmeInventorySubsystem *nvme_inventory_add_subsystem(NvmeInventory *inv);
NvmeInventoryController *nvme_inventory_add_controller(NvmeInventorySubsystem *s);
NvmeInventoryNamespace *nvme_inventory_add_namespace(NvmeInventorySubsystem *s);

/* strdup that keeps NULL as NULL; sets *failed on ENOMEM. */
char *nvme_inventory_strdup(const char *s, bool *failed);

/* Sorts subsystems by name (natural order), for stable output. */
void nvme_inventory_sort(NvmeInventory *inv);

int nvme_inventory_libnvme(NvmeInventory **ret);

