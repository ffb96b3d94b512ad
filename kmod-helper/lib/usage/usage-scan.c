/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "host/host-root.h"
#include "usage/usage-scan.h"
#include "util/fileio.h"
#include "util/macro.h"

int usage_scan_init(UsageScan *s, const NvmeBlockDevices *devices) {
        *s = (UsageScan) { .devices = devices };
        return usage_collector_init(&s->collector);
}

int usage_scan_build_index(UsageScan *s) {
        int r;

        for (size_t i = 0; i < s->devices->n_devices; i++) {
                const NvmeBlockDevice *d = &s->devices->devices[i];

                r = device_index_add(&s->index, d->name, d->devno, DEVICE_INDEX_NVME, i, 0);
                if (r < 0)
                        return r;
        }
        r = holder_set_index(&s->holders, &s->index);
        if (r < 0)
                return r;
        return device_index_seal(&s->index);
}

void usage_scan_done(UsageScan *s) {
        device_index_done(&s->index);
        holder_set_done(&s->holders);
        usage_collector_done(&s->collector);
        for (size_t i = 0; i < s->n_mounts; i++)
                free(s->mounts[i].target);
        free(s->mounts);
        *s = (UsageScan) {};
}

/* realpath() of the path under the root, back in the host's view. */
static int resolve_under_root(const char *path, char **ret) {
        _cleanup_free_ char *p = NULL;
        char *resolved;
        size_t root_len = strlen(host_root());
        int r;

        r = host_path(path, &p);
        if (r < 0)
                return r;
        resolved = realpath(p, NULL);
        if (!resolved)
                return -errno;
        if (root_len > 0 && strneq(resolved, host_root(), root_len))
                memmove(resolved, resolved + root_len, strlen(resolved + root_len) + 1);
        *ret = resolved;
        return 0;
}

const DeviceIndexEntry *usage_scan_lookup_dev_path(const UsageScan *s, const char *path, size_t *ret_n) {
        _cleanup_free_ char *resolved = NULL;
        const DeviceIndexEntry *e;

        *ret_n = 0;
        if (!path || !strneq(path, "/dev/", 5))
                return NULL;
        /* The common case costs no system call: the kernel's own name. */
        if (!strchr(path + 5, '/') && (e = device_index_by_name(&s->index, path + 5, ret_n)))
                return e;
        if (resolve_under_root(path, &resolved) < 0 || !strneq(resolved, "/dev/", 5))
                return NULL;
        return device_index_by_name(&s->index, path_basename(resolved), ret_n);
}

static int remember_mount(UsageScan *s, const DeviceIndexEntry *e, const char *target) {
        MountMatch *m;

        if (s->n_mounts == s->alloc_mounts) {
                size_t alloc = s->alloc_mounts * 2 + 8;

                m = realloc(s->mounts, alloc * sizeof(MountMatch));
                if (!m)
                        return -ENOMEM;
                s->mounts = m;
                s->alloc_mounts = alloc;
        }
        m = &s->mounts[s->n_mounts];
        *m = (MountMatch) { .kind = e->kind, .ref = e->ref, .sub = e->sub, .target = strdup(target) };
        if (!m->target)
                return -ENOMEM;
        s->n_mounts++;
        return 0;
}

int usage_scan_record_use(UsageScan *s, const DeviceIndexEntry *e, UsageKind kind, const char *where,
                          const char *what) {
        int r;

        if (kind == USAGE_MOUNTED && (r = remember_mount(s, e, where)) < 0)
                return r;
        if (e->kind == DEVICE_INDEX_HOLDER)
                return kind == USAGE_SWAP ? holder_record_set_use(&s->holders, e->ref, e->sub, "[SWAP]", "swap")
                                          : holder_record_set_use(&s->holders, e->ref, e->sub, where, what);
        r = usage_collector_add(&s->collector, kind, s->devices->devices[e->ref].name, where, what, 0);
        return r < 0 ? r : 0;
}
