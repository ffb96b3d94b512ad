/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The state one usage check shares between its sources: the devices being
 * checked, the one device lookup, the stacked devices, what was found so far,
 * and the mounts found on NVMe (the swap source needs them for swap files). */

#include "nvme/nvme-block-devices.h"
#include "usage/device-index.h"
#include "usage/holder-users.h"
#include "usage/usage-collector.h"

typedef struct MountMatch {
        char *target;
        DeviceIndexKind kind;
        size_t ref, sub; /* as in DeviceIndexEntry */
} MountMatch;

typedef struct UsageScan {
        const NvmeBlockDevices *devices; /* borrowed */
        DeviceIndex index;
        HolderSet holders;
        UsageCollector collector;
        MountMatch *mounts;
        size_t n_mounts, alloc_mounts;
        char *const *held; /* borrowed, may be NULL: namespaces we hold with O_EXCL ourselves
                              (claim-hold.h); the exclusive open does not probe them */
} UsageScan;

/* Starts a scan over devices (borrowed); holders are read by the caller (or
 * left empty) before usage_scan_build_index(). 0 or -ENOMEM. */
int usage_scan_init(UsageScan *s, const NvmeBlockDevices *devices);
int usage_scan_build_index(UsageScan *s);
void usage_scan_done(UsageScan *s);

/* The index entries a /dev path names: "/dev/nvme0n1p1" directly, else
 * the path resolved under the host root ("/dev/disk/by-uuid/...",
 * "/dev/mapper/vg0-data" -> dm-0). NULL (and *ret_n 0) when none. */
const DeviceIndexEntry *usage_scan_lookup_dev_path(const UsageScan *s, const char *path, size_t *ret_n);

/* Records a use (a mount or swap) of an indexed device: a USAGE_MOUNTED or
 * USAGE_SWAP for an NVMe device, the holder record's use for a stacked one.
 * mount targets are remembered for swap files. 0 or -ENOMEM. */
int usage_scan_record_use(UsageScan *s, const DeviceIndexEntry *e, UsageKind kind, const char *where,
                          const char *what);
