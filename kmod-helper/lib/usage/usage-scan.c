/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
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

/* Joins a link target to the directory of the link and folds "." and ".."
 * textually: "/dev/disk/by-uuid" + "../../nvme0n1" -> "/dev/nvme0n1". */
static int join_link(const char *link_path, const char *target, char **ret) {
        _cleanup_free_ char *joined = NULL;
        char *out, *save = NULL;
        size_t len = 0;

        if (target[0] == '/')
                joined = strdup(target);
        else if (asprintf(&joined, "%.*s/%s", (int) (path_basename(link_path) - link_path), link_path, target) < 0)
                joined = NULL;
        if (!joined)
                return -ENOMEM;
        out = calloc(1, strlen(joined) + 2);
        if (!out)
                return -ENOMEM;
        for (char *c = strtok_r(joined, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
                if (streq(c, "."))
                        continue;
                if (streq(c, "..")) {
                        while (len > 0 && out[len] != '/')
                                len--;
                        out[len] = '\0';
                        continue;
                }
                len += sprintf(out + len, "/%s", c);
        }
        if (len == 0)
                strcpy(out, "/");
        *ret = out;
        return 0;
}

/* Follows the symlinks of a /dev path under the root, in the host's view,
 * without needing the final node to exist (a fake root has no device nodes,
 * and a link may point at a node that just went). At most 16 hops. */
static int resolve_dev_link(const char *path, char **ret) {
        _cleanup_free_ char *cur = strdup(path);
        int r;

        if (!cur)
                return -ENOMEM;
        for (int hop = 0; hop < 16; hop++) {
                _cleanup_free_ char *p = NULL, *target = NULL;
                char *next;

                if ((r = host_path(cur, &p)) < 0)
                        return r;
                r = read_link(p, &target);
                if (r == -EINVAL || r == -ENOENT) { /* not a link (any more): this is the node */
                        *ret = TAKE_PTR(cur);
                        return 0;
                }
                if (r < 0)
                        return r;
                if ((r = join_link(cur, target, &next)) < 0)
                        return r;
                free(cur);
                cur = next;
        }
        return -ELOOP;
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
        if (resolve_dev_link(path, &resolved) < 0 || !strneq(resolved, "/dev/", 5))
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
