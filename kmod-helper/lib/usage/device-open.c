/* SPDX-License-Identifier: Apache-2.0 */
/* Opens of NVMe device nodes, checked (the design: device-open.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host-root.h"
#include "nvme/nvme-names.h"
#include "usage/device-open.h"
#include "usage/process-fds.h"
#include "util/macro.h"

static DeviceOpenSource open_source;
static void *open_source_userdata;

void device_open_set_source(DeviceOpenSource source, void *userdata) {
        open_source = source;
        open_source_userdata = userdata;
}

bool device_open_name_valid(DeviceOpenKind kind, const char *name) {
        if (!name || strnlen(name, DEVICE_OPEN_NAME_MAX) >= DEVICE_OPEN_NAME_MAX)
                return false;
        switch (kind) {
        case DEVICE_OPEN_CONTROLLER:
                return name[0] && strlen(name) > 4 && nvme_name_is_controller(name);
        case DEVICE_OPEN_EXCLUSIVE:
                return process_fd_name_valid(name) && !nvme_name_is_hidden_path(name);
        }
        return false;
}

/* The node's type for the kind: on the real host the device type; in a
 * fake root the regular file that stands for it. */
static bool type_ok(DeviceOpenKind kind, mode_t mode) {
        if (!host_root_is_real())
                return S_ISREG(mode);
        return kind == DEVICE_OPEN_CONTROLLER ? S_ISCHR(mode) : S_ISBLK(mode);
}

static int wrong_type(DeviceOpenKind kind) {
        return kind == DEVICE_OPEN_CONTROLLER ? -ENOTTY : -ENOTBLK;
}

int device_open_direct(DeviceOpenKind kind, const char *name, int *ret_fd) {
        _cleanup_free_ char *path = NULL;
        struct stat before, after;
        int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW;
        int fd;

        if (!device_open_name_valid(kind, name))
                return -EINVAL;
        if (host_pathf(&path, "/dev/%s", name) < 0)
                return -ENOMEM;
        /* Before the open: opening a FIFO or another driver's node has
         * effects of its own, and nothing but the expected node is opened. */
        if (lstat(path, &before) < 0)
                return -errno;
        if (!type_ok(kind, before.st_mode))
                return wrong_type(kind);
        if (kind == DEVICE_OPEN_EXCLUSIVE)
                flags |= O_EXCL; /* a block device's exclusive claim (no O_CREAT) */
        fd = open(path, flags);
        if (fd < 0)
                return -errno;
        /* The same node as looked at: nothing was swapped in between. */
        if (fstat(fd, &after) < 0 || !type_ok(kind, after.st_mode) || after.st_rdev != before.st_rdev ||
            after.st_ino != before.st_ino || after.st_dev != before.st_dev) {
                close(fd);
                return wrong_type(kind);
        }
        *ret_fd = fd;
        return 0;
}

int device_open(DeviceOpenKind kind, const char *name, int *ret_fd) {
        if (open_source)
                return open_source(open_source_userdata, kind, name, ret_fd);
        return device_open_direct(kind, name, ret_fd);
}
