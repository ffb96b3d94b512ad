/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* One lookup of "which device is this" for every usage source: by device
 * number (mountinfo's major:minor, st_rdev) and by kernel name ("nvme0n1p1",
 * "dm-0"), each a sorted array searched by bisection, so that walking N
 * mounts or fds costs N log(devices), never N x devices.
 *
 * Entries are NVMe block devices, and stacked devices (dm, md) above them,
 * which point to a holder record (see holder-users.h). A stacked device
 * above several NVMe devices has one entry per record. */

#include <stddef.h>
#include <sys/types.h>

typedef enum DeviceIndexKind {
        DEVICE_INDEX_NVME,   /* ref = index into NvmeBlockDevices.devices */
        DEVICE_INDEX_HOLDER, /* ref = index into HolderSet.records */
} DeviceIndexKind;

typedef struct DeviceIndexEntry {
        const char *name; /* borrowed from the device list or holder set */
        dev_t devno;      /* 0 when unknown: then only found by name */
        DeviceIndexKind kind;
        size_t ref;
        size_t sub;       /* DEVICE_INDEX_HOLDER: which member of the record's stack */
        size_t seq;       /* insertion order: breaks ties so that sorting is stable */
} DeviceIndexEntry;

typedef struct DeviceIndex {
        DeviceIndexEntry *by_devno; /* sorted by devno, unknown devnos left out */
        size_t n_by_devno;
        DeviceIndexEntry *by_name;  /* sorted by name */
        size_t n_by_name;
        size_t n, alloc;            /* entries being added, before device_index_seal() */
        DeviceIndexEntry *pending;
} DeviceIndex;

/* Adds an entry (name is borrowed and must outlive the index). 0 or -ENOMEM. */
int device_index_add(DeviceIndex *idx, const char *name, dev_t devno, DeviceIndexKind kind, size_t ref,
                     size_t sub);
/* Builds the sorted arrays; call once, after the last add. 0 or -ENOMEM. */
int device_index_seal(DeviceIndex *idx);
void device_index_done(DeviceIndex *idx);

/* All entries with this devno / name: a pointer to the first and the count
 * in *ret_n (0 and NULL when none). */
const DeviceIndexEntry *device_index_by_devno(const DeviceIndex *idx, dev_t devno, size_t *ret_n);
const DeviceIndexEntry *device_index_by_name(const DeviceIndex *idx, const char *name, size_t *ret_n);
