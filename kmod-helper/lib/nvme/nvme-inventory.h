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

/* 0 or -errno; no NVMe at all (modules not loaded) is an empty inventory.
 * *ret untouched on failure. */
int nvme_inventory_read(NvmeInventory **ret);

/* Builds it from sysfs only, whatever the root (what nvme_inventory_read
 * uses under a test root). */
int nvme_inventory_read_sysfs(NvmeInventory **ret);

NvmeInventory *nvme_inventory_free(NvmeInventory *inv);
DEFINE_TRIVIAL_CLEANUP_FUNC(NvmeInventory *, nvme_inventory_free);
