/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Stacked block devices (device-mapper, md, LVM) on NVMe devices, from
 * /sys/class/block/<dev>/holders/, recursively: a holder keeps the NVMe
 * device open for as long as it exists, whatever uses the holder.
 * One record per (NVMe device, direct holder); the record lists every
 * device stacked above, so that a mount of any of them (LVM on LUKS on a
 * partition) can be told on the record. */

#include <stddef.h>
#include <sys/types.h>

#include "nvme/nvme-block-devices.h"
#include "usage/device-index.h"
#include "usage/usage-collector.h"

#define HOLDER_MAX_DEPTH 16

typedef struct HolderRecord {
        size_t device;    /* index into NvmeBlockDevices.devices */
        char **stacked;   /* kernel names, the direct holder first, then what is stacked on it */
        char **friendly;  /* same length: "vg0-data" (dm/name), "raid1" (md/level), "" if none */
        dev_t *devnos;    /* same length: 0 when unknown */
        size_t n_stacked;
        char *mount_point; /* set by the mount or swap source, see Usage */
        char *fstype;
        size_t used_member; /* which member is mounted: 0 is the direct holder */
} HolderRecord;

typedef struct HolderSet {
        HolderRecord *records;
        size_t n_records, alloc;
} HolderSet;

/* Reads holders/ of every device, recursively (at most HOLDER_MAX_DEPTH
 * levels; a cycle or a too deep stack is noted, not followed).
 * 0 or -errno; a device without holders/ simply has none. */
int holder_set_read(const NvmeBlockDevices *devices, HolderSet *ret, UsageCollector *c);
void holder_set_done(HolderSet *s);

/* Puts every stacked device of every record into the index. 0 or -ENOMEM. */
int holder_set_index(const HolderSet *s, DeviceIndex *idx);

/* Records that member `sub` of record `ref` is mounted (or is swap); the
 * first use found is kept. 0 or -ENOMEM. */
int holder_record_set_use(HolderSet *s, size_t ref, size_t sub, const char *mount_point, const char *fstype);

/* One USAGE_HOLDER per record. 0 or -ENOMEM. */
int holder_set_to_usages(const HolderSet *s, const NvmeBlockDevices *devices, UsageCollector *c);
