/* SPDX-License-Identifier: Apache-2.0 */
/* One connect through /dev/nvme-fabrics (see fabrics-connect.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actions/fabrics-connect.h"
#include "host/host-root.h"
#include "host/kernel-log.h"
#include "util/parse-util.h"
#include "util/string-util.h"

int fabrics_parse_connect_reply(const char *reply, unsigned *ret_instance) {
        const char *p = reply;

        /* nvmf_dev_show(): "instance=%d,cntlid=%d\n" */
        while (p && *p) {
                size_t len = strcspn(p, ",\n");

                if (len > 9 && strneq(p, "instance=", 9)) {
                        _cleanup_free_ char *number = strndup(p + 9, len - 9);

                        if (!number)
                                return -ENOMEM;
                        return safe_atou(number, ret_instance);
                }
                p += len;
                p += strspn(p, ",\n");
        }
        return -EINVAL;
}

static int connect_fd(int fd, const char *options, unsigned *ret_instance) {
        char reply[256] = {};
        size_t len = strlen(options);
        ssize_t n;

        /* One write: the kernel parses the whole string at once
         * (nvmf_dev_write() -> nvmf_create_ctrl()), and returns only when the
         * controller is set up or refused. */
        n = write(fd, options, len);
        if (n < 0)
                return -errno;
        if ((size_t) n != len)
                return -EIO;
        n = read(fd, reply, sizeof(reply) - 1);
        if (n < 0)
                return -errno;
        return fabrics_parse_connect_reply(reply, ret_instance);
}

int fabrics_connect(const char *options, unsigned *ret_instance, char **ret_kernel_message) {
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int fd = -EBADF, kmsg = -EBADF;
        int r;

        r = host_path("/dev/nvme-fabrics", &path);
        if (r < 0)
                return r;
        fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        kmsg = kernel_log_open_tail(); /* before the call: only its own messages */
        r = connect_fd(fd, options, ret_instance);
        if (r < 0 && ret_kernel_message && kmsg >= 0 && kernel_log_read_new(kmsg, "nvme", ret_kernel_message) < 0)
                *ret_kernel_message = NULL;
        return r;
}
