/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host-root.h"
#include "nvme/nvme-names.h"
#include "usage/device-open.h"
#include "usage/exclusive-open.h"
#include "util/fileio.h"
#include "util/macro.h"

ExclusiveOpenResult exclusive_open_probe(const char *name, int *ret_errno) {
        int fd, r;

        *ret_errno = 0;
        r = device_open(DEVICE_OPEN_EXCLUSIVE, name, &fd);
        if (r >= 0) {
                close(fd); /* at once: the open holds a reference on the driver module */
                return EXCLUSIVE_OPEN_FREE;
        }
        *ret_errno = -r;
        switch (-r) {
        case EBUSY:
                return EXCLUSIVE_OPEN_CLAIMED;
        case ENOTBLK:
                return EXCLUSIVE_OPEN_NOT_BLOCK;
        case ENOENT:
        case ENXIO:
        case ENODEV:
                return EXCLUSIVE_OPEN_GONE;
        default:
                return EXCLUSIVE_OPEN_FAILED;
        }
}

/* Marks the namespaces (by their first device index) with any usage. */
static int explained_namespaces(const UsageScan *s, bool **ret) {
        const NvmeBlockDevices *d = s->devices;
        bool *used = calloc(d->n_devices + 1, sizeof(bool));
        size_t n = 0;

        if (!used)
                return -ENOMEM;
        for (size_t i = 0; i < s->collector.n_usages; i++) {
                const DeviceIndexEntry *e = device_index_by_name(&s->index, s->collector.usages[i].device, &n);

                for (size_t k = 0; k < n; k++)
                        if (e[k].kind == DEVICE_INDEX_NVME)
                                used[e[k].ref] = true;
        }
        /* Spread over each namespace group: devices come as a namespace then
         * its partitions, so a group is a run starting at a non-partition. */
        for (size_t start = 0, end; start < d->n_devices; start = end) {
                bool any = false;

                for (end = start + 1; end < d->n_devices && d->devices[end].is_partition; end++)
                        ;
                for (size_t i = start; i < end; i++)
                        any = any || used[i];
                for (size_t i = start; i < end; i++)
                        used[i] = any;
        }
        *ret = used;
        return 0;
}

/* "The device is gone, and sysfs agrees": the only probe error that is not
 * a blocker. A /dev node missing while sysfs still lists the device (a
 * private or stale /dev, a rename race) proves nothing about its use. */
static bool gone_from_sysfs(const char *name) {
        _cleanup_free_ char *path = NULL;

        return host_pathf(&path, "/sys/class/block/%s", name) >= 0 && path_exists(path) == 0;
}

/* Fail closed: every answer but FREE and CLAIMED either proves the device
 * gone (a note) or leaves its use unknown (a USAGE_UNCHECKED blocker). */
static int note_probe(UsageScan *s, const char *name, ExclusiveOpenResult res, int err) {
        _cleanup_free_ char *why = NULL;
        int r;

        switch (res) {
        case EXCLUSIVE_OPEN_GONE:
                if (gone_from_sysfs(name))
                        return usage_collector_note(&s->collector, "%s: /dev/%s is gone (%s) and sysfs no longer "
                                                    "lists it; the device went away", name, name, strerror(err));
                r = asprintf(&why, "the exclusive open of /dev/%s failed (%s) but sysfs still lists the device",
                             name, strerror(err));
                break;
        case EXCLUSIVE_OPEN_NOT_BLOCK:
                r = asprintf(&why, "/dev/%s is not a block device, so the kernel could not be asked whether "
                             "it is claimed", name);
                break;
        case EXCLUSIVE_OPEN_FAILED:
                r = asprintf(&why, "the exclusive open of /dev/%s failed: %s", name, strerror(err));
                break;
        default:
                return 0;
        }
        if (r < 0)
                return -ENOMEM;
        r = usage_collector_add(&s->collector, USAGE_UNCHECKED, name, NULL, why, 0);
        return r < 0 ? r : 0;
}

static bool held_by_us(const UsageScan *s, const char *name) {
        for (char *const *h = s->held; h && *h; h++)
                if (nvme_name_belongs_to(name, *h))
                        return true;
        return false;
}

/* Probes one namespace group [start, end): the busy partitions are
 * reported; the whole disk only when none of its partitions is. */
static int probe_group(UsageScan *s, size_t start, size_t end, ExclusiveOpenProbe probe) {
        const NvmeBlockDevices *d = s->devices;
        bool whole_busy = false, part_busy = false;
        int err, r;

        for (size_t i = start; i < end; i++) {
                const char *name = d->devices[i].name;
                ExclusiveOpenResult res;

                if (held_by_us(s, name))
                        continue; /* our own claim: nobody else can hold one */
                res = probe(name, &err);

                if (res != EXCLUSIVE_OPEN_CLAIMED) {
                        if ((r = note_probe(s, name, res, err)) < 0)
                                return r;
                        continue;
                }
                if (!d->devices[i].is_partition) {
                        whole_busy = true;
                        continue;
                }
                part_busy = true;
                r = usage_collector_add(&s->collector, USAGE_KERNEL_CLAIM, name, NULL, "EBUSY", 0);
                if (r < 0)
                        return r;
        }
        if (whole_busy && !part_busy) {
                r = usage_collector_add(&s->collector, USAGE_KERNEL_CLAIM, d->devices[start].name, NULL, "EBUSY", 0);
                if (r < 0)
                        return r;
        }
        return 0;
}

int exclusive_open_check(UsageScan *s) {
        return exclusive_open_check_with(s, exclusive_open_probe);
}

int exclusive_open_check_with(UsageScan *s, ExclusiveOpenProbe probe) {
        const NvmeBlockDevices *d = s->devices;
        _cleanup_free_ bool *explained = NULL;
        int r;

        r = explained_namespaces(s, &explained);
        if (r < 0)
                return r;
        for (size_t start = 0, end; start < d->n_devices; start = end) {
                for (end = start + 1; end < d->n_devices && d->devices[end].is_partition; end++)
                        ;
                if (explained[start])
                        continue;
                if ((r = probe_group(s, start, end, probe)) < 0)
                        return r;
        }
        return 0;
}
