/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "nvme/nvme-names.h"
#include "nvme/nvme-sysfs.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

static bool is_absent(int r) {
        return r == -ENOENT || r == -ENOTDIR || r == -ENODEV;
}

int nvme_sysfs_read(const char *dir, const char *attr, char **ret) {
        _cleanup_free_ char *path = NULL;

        if (asprintf(&path, "%s/%s", dir, attr) < 0)
                return -ENOMEM;
        return read_one_line_file(path, ret);
}

int nvme_sysfs_read_opt(const char *dir, const char *attr, char **ret) {
        int r = nvme_sysfs_read(dir, attr, ret);

        if (is_absent(r)) {
                *ret = NULL;
                return 0;
        }
        return r;
}

int nvme_sysfs_read_opt_at(int dfd, const char *attr, char **ret) {
        int r = read_one_line_file_at(dfd, attr, ret);

        if (is_absent(r)) {
                *ret = NULL;
                return 0;
        }
        return r;
}

int nvme_sysfs_list(const char *dir, char ***ret) {
        int r = read_dir_names(dir, ret);

        return r == -ENOENT || r == -ENOTDIR ? strv_copy(NULL, ret) : r;
}

int nvme_sysfs_controllers(const char *dir, char ***ret) {
        _cleanup_strv_free_ char **names = NULL, **ctrls = NULL;
        int r;

        r = nvme_sysfs_list(dir, &names);
        if (r < 0)
                return r;
        r = strv_copy(NULL, &ctrls);
        if (r < 0)
                return r;
        STRV_FOREACH(n, names)
                if (nvme_name_is_controller(*n) && strv_extend(&ctrls, *n) < 0)
                        return -ENOMEM;
        *ret = TAKE_PTR(ctrls);
        return 0;
}
