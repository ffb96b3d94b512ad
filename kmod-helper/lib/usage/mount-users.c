/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <libmount.h>
#include <stdlib.h>
#include <string.h>

#include "host/host-root.h"
#include "usage/mount-users.h"
#include "util/libmount-util.h"
#include "util/macro.h"

static int match_one(UsageScan *s, struct libmnt_fs *fs) {
        const char *target = mnt_fs_get_target(fs), *fstype = mnt_fs_get_fstype(fs);
        const DeviceIndexEntry *e;
        size_t n = 0;
        int r;

        if (!target)
                return 0;
        e = device_index_by_devno(&s->index, mnt_fs_get_devno(fs), &n);
        if (!e)
                e = usage_scan_lookup_dev_path(s, mnt_fs_get_srcpath(fs), &n);
        for (size_t i = 0; i < n; i++)
                if ((r = usage_scan_record_use(s, &e[i], USAGE_MOUNTED, target, fstype)) < 0)
                        return r;
        return 0;
}

int mount_users_match(UsageScan *s, struct libmnt_table *tb) {
        _cleanup_(mnt_free_iterp) struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
        struct libmnt_fs *fs;
        int r;

        if (!it)
                return -ENOMEM;
        while (mnt_table_next_fs(tb, it, &fs) == 0)
                if ((r = match_one(s, fs)) < 0)
                        return r;
        return 0;
}

int mount_users_match_file(UsageScan *s, const char *path) {
        _cleanup_(mnt_unref_tablep) struct libmnt_table *tb = mnt_new_table();
        int r;

        if (!tb)
                return -ENOMEM;
        r = mnt_table_parse_file(tb, path);
        if (r < 0)
                return r;
        return mount_users_match(s, tb);
}

int mount_users_read(UsageScan *s) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = host_path("/proc/1/mountinfo", &path);
        if (r < 0)
                return r;
        r = mount_users_match_file(s, path);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return usage_collector_note(&s->collector, "could not read the host's mount table %s: %s",
                                            "/proc/1/mountinfo", strerror(-r));
        return 0;
}
