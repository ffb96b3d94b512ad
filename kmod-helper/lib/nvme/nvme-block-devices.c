/* SPDX-License-Identifier: Apache-2.0 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "host/host-root.h"
#include "nvme/nvme-block-devices.h"
#include "nvme/nvme-names.h"
#include "util/alloc-util.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/parse-util.h"
#include "util/strv.h"

/* What sysfs looks like on 6.1 (drivers/nvme/host/core.c, multipath.c):
 *   /sys/class/block/nvme0n1 -> ../../devices/pci.../nvme/nvme0/nvme0n1
 *       dev, size, nsid, hidden; device -> the controller (serial, subsysnqn)
 *   /sys/class/block/nvme0n1p1 -> .../nvme0n1/nvme0n1p1 (partition, dev, size)
 * A multipath head is added under the subsystem device instead:
 *   /sys/class/block/nvme0n1 -> ../../devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1
 *       device -> nvme-subsys0 (subsysnqn, serial; links nvme0, nvme1 to its controllers)
 * and its paths nvme0c0n1, nvme0c1n1 are hidden disks (hidden = 1, no /dev node). */

typedef struct DeviceList {
        NvmeBlockDevice *devices;
        size_t n, alloc;
} DeviceList;

typedef struct Scan {
        DeviceList namespaces;
        DeviceList partitions;
        char **notes;
} Scan;

static void device_done(NvmeBlockDevice *d) {
        free(d->name);
        free(d->namespace_name);
        free(d->serial);
        free(d->subsystem_nqn);
}

static inline void device_donep(NvmeBlockDevice *d) {
        device_done(d);
}

static void device_list_done(DeviceList *l) {
        for (size_t i = 0; i < l->n; i++)
                device_done(&l->devices[i]);
        free(l->devices);
}

static void scan_done(Scan *s) {
        device_list_done(&s->namespaces);
        device_list_done(&s->partitions);
        strv_free(s->notes);
}

NvmeBlockDevices *nvme_block_devices_free(NvmeBlockDevices *d) {
        if (!d)
                return NULL;
        device_list_done(&(DeviceList) { .devices = d->devices, .n = d->n_devices });
        strv_free(d->notes);
        free(d);
        return NULL;
}


/* Takes *d over (it is zeroed) on success and on failure. */
static int device_list_add(DeviceList *l, NvmeBlockDevice *d) {
        if (ARRAY_RESERVE(l->devices, l->alloc, l->n, 16) < 0) {
                device_done(d);
                *d = (NvmeBlockDevice) {};
                return -ENOMEM;
        }
        l->devices[l->n++] = *d;
        *d = (NvmeBlockDevice) {};
        return 0;
}

/* An attribute of the device directory dfd; NULL in *ret (and 0) when it
 * is absent or cannot be read: a device must not make the whole scan fail,
 * and what is missing is noted by the callers that need the value. */
static int read_attr(int dfd, const char *attr, char **ret) {
        int r;

        r = read_one_line_file_at(dfd, attr, ret);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                *ret = NULL;
        return 0;
}

/* Controllers and subsystems print serials space-padded on some kernels. */
static void strip_trailing_space(char *s) {
        size_t n = s ? strlen(s) : 0;

        while (n > 0 && isspace((unsigned char) s[n - 1]))
                s[--n] = '\0';
}

static int read_devno(Scan *s, NvmeBlockDevice *d, int dfd) {
        _cleanup_free_ char *v = NULL;
        int r;

        r = read_attr(dfd, "dev", &v);
        if (r < 0)
                return r;
        if (!v)
                return strv_extendf(&s->notes, "%s: /sys/class/block/%s/dev is missing or unreadable; checked by name only",
                                    d->name, d->name);
        if (parse_devno(v, &d->devno) < 0)
                return strv_extendf(&s->notes, "%s: /sys/class/block/%s/dev is not a device number (\"%s\"); "
                                    "checked by name only", d->name, d->name, v);
        return 0;
}

static int read_size(Scan *s, NvmeBlockDevice *d, int dfd) {
        _cleanup_free_ char *v = NULL;
        uint64_t sectors;
        int r;

        r = read_attr(dfd, "size", &v);
        if (r < 0)
                return r;
        if (!v)
                return strv_extendf(&s->notes, "%s: /sys/class/block/%s/size is missing or unreadable", d->name, d->name);
        /* `size` counts 512-byte sectors whatever the logical block size. */
        if (safe_atou64(v, &sectors) < 0 || sectors > UINT64_MAX / 512)
                return strv_extendf(&s->notes, "%s: /sys/class/block/%s/size is not a sector count (\"%s\")",
                                    d->name, d->name, v);
        d->size_bytes = sectors * 512;
        return 0;
}

static int read_nsid(Scan *s, NvmeBlockDevice *d, int dfd) {
        _cleanup_free_ char *v = NULL;
        int r;

        r = read_attr(dfd, "nsid", &v);
        if (r < 0 || !v)
                return r;
        if (safe_atou(v, &d->nsid) < 0)
                return strv_extendf(&s->notes, "%s: /sys/class/block/%s/nsid is not a number (\"%s\")",
                                    d->name, d->name, v);
        return 0;
}

/* Fallback when `device` cannot be read: a head lives in its subsystem's
 * directory, /sys/class/nvme-subsystem/nvme-subsys<X>/nvme<X>n<Y>. */
static int head_by_subsystem_dir(const char *name, bool *ret) {
        _cleanup_free_ char *path = NULL;
        unsigned instance = 0;
        int r;

        if (sscanf(name, "nvme%un", &instance) != 1) {
                *ret = false;
                return 0;
        }
        r = host_pathf(&path, "/sys/class/nvme-subsystem/nvme-subsys%u/%s", instance, name);
        if (r < 0)
                return r;
        r = path_exists(path);
        if (r < 0)
                return r;
        *ret = r > 0;
        return 0;
}

static int detect_multipath_head(const char *name, int dfd, bool *ret) {
        _cleanup_free_ char *target = NULL;
        int r;

        r = read_link_at(dfd, "device", &target);
        if (r < 0)
                return head_by_subsystem_dir(name, ret);
        *ret = strneq(path_basename(target), "nvme-subsys", strlen("nvme-subsys"));
        return 0;
}

/* The lowest-numbered controller linked from a subsystem directory. */
static int first_subsystem_controller(int dfd, char **ret) {
        _cleanup_strv_free_ char **entries = NULL;
        const char *best = NULL;
        unsigned best_n = 0, n;
        int r;

        r = read_dir_names_at(dfd, "device", &entries);
        if (r == -ENOMEM)
                return r;
        if (r < 0) { /* then the subsystem's own serial will do */
                *ret = NULL;
                return 0;
        }
        STRV_FOREACH(e, entries)
                if (nvme_name_is_controller(*e) && safe_atou(*e + 4, &n) >= 0 &&
                    (!best || n < best_n)) {
                        best = *e;
                        best_n = n;
                }
        *ret = best ? strdup(best) : NULL;
        return best && !*ret ? -ENOMEM : 0;
}

static int read_serial(NvmeBlockDevice *d, int dfd) {
        _cleanup_free_ char *ctrl = NULL, *attr = NULL;
        int r;

        if (d->multipath_head) {
                r = first_subsystem_controller(dfd, &ctrl);
                if (r < 0)
                        return r;
        }
        if (ctrl && asprintf(&attr, "device/%s/serial", ctrl) < 0)
                return -ENOMEM;
        r = read_attr(dfd, attr ? attr : "device/serial", &d->serial);
        if (r >= 0 && !d->serial && attr) /* no controller attribute: the subsystem's own */
                r = read_attr(dfd, "device/serial", &d->serial);
        strip_trailing_space(d->serial);
        return r;
}

static int read_namespace(Scan *s, const char *name, int dfd) {
        _cleanup_(device_donep) NvmeBlockDevice d = {};
        _cleanup_free_ char *hidden = NULL;
        int r;

        r = read_attr(dfd, "hidden", &hidden);
        if (r < 0)
                return r;
        if (hidden && streq(hidden, "1"))
                return 0; /* a multipath path that was not named like one */
        d.name = strdup(name);
        d.namespace_name = strdup(name);
        if (!d.name || !d.namespace_name)
                return -ENOMEM;
        if ((r = read_devno(s, &d, dfd)) < 0 || (r = read_size(s, &d, dfd)) < 0 || (r = read_nsid(s, &d, dfd)) < 0 ||
            (r = detect_multipath_head(name, dfd, &d.multipath_head)) < 0 || (r = read_serial(&d, dfd)) < 0 ||
            (r = read_attr(dfd, "device/subsysnqn", &d.subsystem_nqn)) < 0)
                return r;
        return device_list_add(&s->namespaces, &d);
}

/* The partition's parent from where sysfs puts it (.../nvme0n1/nvme0n1p1),
 * else from its name. */
static int partition_parent(int class_fd, const char *name, char **ret) {
        _cleanup_free_ char *target = NULL;
        char *slash;

        if (read_link_at(class_fd, name, &target) >= 0 && (slash = strrchr(target, '/')) && slash != target) {
                *slash = '\0';
                if (nvme_name_is_namespace(path_basename(target)) || nvme_name_is_hidden_path(path_basename(target)))
                        return (*ret = strdup(path_basename(target))) ? 0 : -ENOMEM;
        }
        return nvme_partition_parent_name(name, ret);
}

static int read_partition(Scan *s, int class_fd, const char *name, int dfd) {
        _cleanup_(device_donep) NvmeBlockDevice d = {};
        int r;

        d.name = strdup(name);
        if (!d.name)
                return -ENOMEM;
        d.is_partition = true;
        r = partition_parent(class_fd, name, &d.namespace_name);
        if (r == -EINVAL)
                return strv_extendf(&s->notes, "%s: a partition whose namespace cannot be told; skipped", name);
        if (r < 0)
                return r;
        if (nvme_name_is_hidden_path(d.namespace_name))
                return 0;
        if ((r = read_devno(s, &d, dfd)) < 0 || (r = read_size(s, &d, dfd)) < 0)
                return r;
        return device_list_add(&s->partitions, &d);
}

static int scan_device(Scan *s, int class_fd, const char *name, int dfd) {
        _cleanup_free_ char *partition = NULL;
        int r;

        if (nvme_name_is_namespace(name)) {
                /* Some device models name partitions freely: trust `partition`. */
                r = read_attr(dfd, "partition", &partition);
                if (r < 0)
                        return r;
                return partition ? read_partition(s, class_fd, name, dfd) : read_namespace(s, name, dfd);
        }
        return read_partition(s, class_fd, name, dfd);
}

static int scan_entry(Scan *s, int class_fd, const char *name) {
        _cleanup_free_ char *parent = NULL;
        _cleanup_close_ int dfd = -EBADF;

        if (nvme_name_is_hidden_path(name))
                return 0;
        if (!nvme_name_is_namespace(name) && nvme_partition_parent_name(name, &parent) < 0)
                return 0; /* not an NVMe block device */
        /* One lookup of the device's (long, symlinked) path; attributes are read relative to it. */
        dfd = openat(class_fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return strv_extendf(&s->notes, "%s: /sys/class/block/%s cannot be opened (%s); skipped", name, name,
                                    strerror(errno));
        return scan_device(s, class_fd, name, dfd);
}

static int cmp_namespace(const void *a, const void *b) {
        return strverscmp(((const NvmeBlockDevice *) a)->name, ((const NvmeBlockDevice *) b)->name);
}

static int cmp_partition(const void *a, const void *b) {
        const NvmeBlockDevice *x = a, *y = b;
        int c = strverscmp(x->namespace_name, y->namespace_name);

        return c != 0 ? c : strverscmp(x->name, y->name);
}

/* A partition takes its namespace's identity: it is the same device to the
 * controller. */
static int inherit_namespace(NvmeBlockDevice *p, const NvmeBlockDevice *ns) {
        p->multipath_head = ns->multipath_head;
        p->nsid = ns->nsid;
        if (ns->serial && !(p->serial = strdup(ns->serial)))
                return -ENOMEM;
        if (ns->subsystem_nqn && !(p->subsystem_nqn = strdup(ns->subsystem_nqn)))
                return -ENOMEM;
        return 0;
}

static int skip_orphan(Scan *s, NvmeBlockDevice *p) {
        int r = strv_extendf(&s->notes, "%s: partition of %s, which is not a listed namespace; skipped",
                             p->name, p->namespace_name);

        device_done(p);
        *p = (NvmeBlockDevice) {};
        return r;
}

static void move_device(NvmeBlockDevices *out, NvmeBlockDevice *d) {
        out->devices[out->n_devices++] = *d;
        *d = (NvmeBlockDevice) {};
}

/* Namespaces in order, each followed by its partitions: one linear merge of
 * the two sorted lists. Moves every device out of the scan. */
static int merge(Scan *s, NvmeBlockDevices *out) {
        DeviceList *ns = &s->namespaces, *parts = &s->partitions;
        size_t j = 0;
        int r;

        if (ns->n > 1) /* qsort's base must not be NULL, even for 0 elements */
                qsort(ns->devices, ns->n, sizeof(NvmeBlockDevice), cmp_namespace);
        if (parts->n > 1)
                qsort(parts->devices, parts->n, sizeof(NvmeBlockDevice), cmp_partition);
        out->devices = calloc(ns->n + parts->n + 1, sizeof(NvmeBlockDevice));
        if (!out->devices)
                return -ENOMEM;
        for (size_t i = 0; i < ns->n; i++) {
                const NvmeBlockDevice *n = &out->devices[out->n_devices];

                move_device(out, &ns->devices[i]);
                for (; j < parts->n && strverscmp(parts->devices[j].namespace_name, n->name) < 0; j++)
                        if ((r = skip_orphan(s, &parts->devices[j])) < 0)
                                return r;
                for (; j < parts->n && streq(parts->devices[j].namespace_name, n->name); j++) {
                        r = inherit_namespace(&parts->devices[j], n);
                        if (r < 0)
                                return r;
                        move_device(out, &parts->devices[j]);
                }
        }
        for (; j < parts->n; j++)
                if ((r = skip_orphan(s, &parts->devices[j])) < 0)
                        return r;
        return 0;
}

int nvme_block_devices_scan(NvmeBlockDevices **ret) {
        _cleanup_(nvme_block_devices_freep) NvmeBlockDevices *out = calloc(1, sizeof(NvmeBlockDevices));
        _cleanup_(scan_done) Scan s = {};
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int class_fd = -EBADF;
        int r;

        if (!out || !(s.notes = strv_new_empty()))
                return -ENOMEM;
        r = host_path("/sys/class/block", &path);
        if (r < 0)
                return r;
        class_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (class_fd < 0 && errno != ENOENT)
                return -errno;
        r = class_fd < 0 ? strv_copy(NULL, &names) /* no block class at all: no devices */
                         : read_dir_names_at(class_fd, ".", &names);
        if (r < 0)
                return r;
        STRV_FOREACH(name, names) {
                r = scan_entry(&s, class_fd, *name);
                if (r < 0)
                        return r;
        }
        r = merge(&s, out);
        if (r < 0)
                return r;
        out->notes = TAKE_PTR(s.notes);
        *ret = TAKE_PTR(out);
        return 0;
}

const NvmeBlockDevice *nvme_block_devices_find(const NvmeBlockDevices *d, const char *name) {
        for (size_t i = 0; d && name && i < d->n_devices; i++)
                if (streq(d->devices[i].name, name))
                        return &d->devices[i];
        return NULL;
}
