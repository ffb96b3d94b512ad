/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The NVMe topology of the node as plain data: subsystems, their controllers
 * and namespaces. The data model only: nvme-inventory-libnvme.h and
 * nvme-inventory-sysfs.h build it, nvme-inventory.h chooses the source. The builders below
 * are for the sources: each appends one zeroed element and returns it, or
 * NULL on ENOMEM; the caller fills it with malloc'd strings that the
 * inventory then owns. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/macro.h"

typedef struct NvmeInventoryController {
        char *name;      /* "nvme0" */
        char *transport; /* "pcie", "tcp", "rdma", "fc", "loop"; NULL when unknown (as all below) */
        char *address;   /* "0000:00:04.0", "traddr=...,trsvcid=..." */
        char *serial;
        char *model;
        char *state;     /* "live", "connecting", ... */
} NvmeInventoryController;

typedef struct NvmeInventoryNamespace {
        char *name;          /* block device: "nvme0n1" */
        unsigned nsid;       /* 0 when unknown */
        uint64_t size_bytes; /* 0 when unknown */
        bool multipath_head; /* served by the subsystem's native multipath head */
        char *controller;    /* the controller it hangs off; NULL for a multipath head */
} NvmeInventoryNamespace;

typedef struct NvmeInventorySubsystem {
        char *name; /* "nvme-subsys0" */
        char *nqn;
        NvmeInventoryController *controllers;
        size_t n_controllers;
        NvmeInventoryNamespace *namespaces; /* heads and per-controller namespaces */
        size_t n_namespaces;
} NvmeInventorySubsystem;

typedef struct NvmeInventory {
        const char *source; /* "libnvme" or "sysfs" (static string) */
        NvmeInventorySubsystem *subsystems; /* sorted by name */
        size_t n_subsystems;
} NvmeInventory;

NvmeInventory *nvme_inventory_free(NvmeInventory *inv);
DEFINE_TRIVIAL_CLEANUP_FUNC(NvmeInventory *, nvme_inventory_free);

NvmeInventorySubsystem *nvme_inventory_add_subsystem(NvmeInventory *inv);
NvmeInventoryController *nvme_inventory_add_controller(NvmeInventorySubsystem *s);
NvmeInventoryNamespace *nvme_inventory_add_namespace(NvmeInventorySubsystem *s);

/* strdup that keeps NULL as NULL; sets *failed on ENOMEM. */
char *nvme_inventory_strdup(const char *s, bool *failed);

/* Sorts subsystems by name (natural order), for stable output. */
void nvme_inventory_sort(NvmeInventory *inv);
