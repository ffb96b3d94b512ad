/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The NVMe block devices of the node, from sysfs (/sys/class/block through
 * host-root): every namespace (plain, or multipath head) and every partition
 * on one. Hidden multipath path devices (nvmeXcYnZ) are not listed: they have
 * no /dev node and cannot be used directly; their head is. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/macro.h"

typedef struct NvmeBlockDevice {
        char *name;          /* "nvme0n1", "nvme0n1p2" */
        char *namespace_name;/* the namespace this is, or the one it is a partition of */
        bool is_partition;
        bool multipath_head; /* a namespace served by a native multipath head */
        dev_t devno;
        uint64_t size_bytes;
        unsigned nsid;       /* namespace id; 0 when unknown */
        char *serial;        /* the controller's (or subsystem's first controller's) serial */
        char *subsystem_nqn; /* NULL when unknown */
} NvmeBlockDevice;

typedef struct NvmeBlockDevices {
        NvmeBlockDevice *devices; /* namespaces sorted by name, each followed by its partitions */
        size_t n_devices;
        char **notes;             /* NULL-terminated, never NULL: odd sysfs met while scanning
                                     ("nvme0n1: .../size: not a number"); such a device is
                                     still listed, with the unknown value 0, so that it is
                                     still checked for use (by name and exclusive open) */
} NvmeBlockDevices;

/* Names sort "naturally": nvme2n1 before nvme10n1. */

/* 0 or -errno; no NVMe devices is an empty list, not an error. */
int nvme_block_devices_scan(NvmeBlockDevices **ret);
NvmeBlockDevices *nvme_block_devices_free(NvmeBlockDevices *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(NvmeBlockDevices *, nvme_block_devices_free);
const NvmeBlockDevice *nvme_block_devices_find(const NvmeBlockDevices *d, const char *name);
