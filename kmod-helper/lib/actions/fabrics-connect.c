/* SPDX-License-Identifier: Apache-2.0 */
/* One connect through /dev/nvme-fabrics (see fabrics-connect.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actions/fabrics-connect.h"
#include "actions/fabrics-device.h"
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

static bool is_delimiter(char c) {
        return c == '\0' || c == ' ' || c == ',' || c == '\'' || c == '"' || c == '\n' || c == ';' || c == '\t';
}

char *fabrics_redact_secrets(const char *line) {
        static const char *const markers[] = { "DHHC-1:", "secret=", "secret " };
        const char *p = line ?: "";
        char *out = malloc(strlen(p) * 2 + sizeof("<redacted>") * 2 + 1), *o = out;

        /* each marker's following token, at most once per byte of input: the
         * result is at most the input plus one "<redacted>" per 7 bytes */
        if (!out)
                return NULL;
        while (*p) {
                size_t skip = 0;

                for (size_t i = 0; i < ELEMENTSOF(markers) && !skip; i++)
                        if (strneq(p, markers[i], strlen(markers[i])))
                                skip = strlen(markers[i]);
                if (!skip) {
                        *o++ = *p++;
                        continue;
                }
                memcpy(o, p, skip), o += skip, p += skip;
                if (is_delimiter(*p))
                        continue;
                while (!is_delimiter(*p))
                        p++;
                o = stpcpy(o, "<redacted>");
        }
        *o = '\0';
        return out;
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

int fabrics_connect(const char *options, unsigned *ret_instance, char **ret_message) {
        _cleanup_free_ char *kernel = NULL, *redacted = NULL, *error = NULL;
        _cleanup_close_ int fd = -EBADF, kmsg = -EBADF;
        int r;

        if (ret_message)
                *ret_message = NULL;
        r = fabrics_device_open(&fd, &error);
        if (r < 0) {
                if (ret_message)
                        *ret_message = TAKE_PTR(error);
                return r;
        }
        kmsg = kernel_log_open_tail(); /* before the call: only its own messages */
        r = connect_fd(fd, options, ret_instance);
        if (r >= 0 || !ret_message)
                return r;
        /* The kernel may have logged a value of the string (an option it did
         * not know, a secret it refused): a copy never carries a secret. */
        if (kmsg >= 0 && kernel_log_read_new(kmsg, "nvme", &kernel) < 0)
                kernel = NULL;
        if (kernel && !(redacted = fabrics_redact_secrets(kernel)))
                return -ENOMEM;
        *ret_message = strdup_printf("%s%s%s", strerror(-r), redacted ? "; the kernel: " : "", redacted ?: "");
        if (kernel)
                explicit_bzero(kernel, strlen(kernel));
        return *ret_message ? r : -ENOMEM;
}
