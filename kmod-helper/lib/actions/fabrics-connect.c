/* SPDX-License-Identifier: Apache-2.0 */
/* One connect through /dev/nvme-fabrics, and the option string it takes
 * (see fabrics-reconnect.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actions/fabrics-connect.h"
#include "actions/fabrics-reconnect.h"
#include "host/host-root.h"
#include "host/kernel-log.h"
#include "nvme/fabrics-record.h"
#include "util/parse-util.h"
#include "util/string-util.h"

/* The kernel's bounds for queue_size (NVMF_MIN_QUEUE_SIZE,
 * NVMF_MAX_QUEUE_SIZE in drivers/nvme/host/fabrics.h, 6.1 and 6.12): a
 * value outside is refused with EINVAL, so one the kernel showed there
 * (sqsize capped below 16 by a target's MQES) is left to the default. */
#define QUEUE_SIZE_MIN 16
#define QUEUE_SIZE_MAX 1024

typedef struct Options {
        char *text;
        bool failed;
} Options;

static void add(Options *o, const char *fmt, ...) _printf_(2, 3);
static void add(Options *o, const char *fmt, ...) {
        _cleanup_free_ char *part = NULL;
        char *joined;
        va_list ap;

        if (o->failed)
                return;
        va_start(ap, fmt);
        part = strdup_vprintf(fmt, ap);
        va_end(ap);
        joined = part ? strdup_printf("%s%s%s", o->text ?: "", o->text ? "," : "", part) : NULL;
        if (part && strstr(part, "dhchap_"))
                explicit_bzero(part, strlen(part));
        if (o->text && strstr(o->text, "dhchap_"))
                explicit_bzero(o->text, strlen(o->text));
        free(o->text);
        o->text = joined;
        o->failed = !joined;
}

static void add_string(Options *o, const char *key, const char *value) {
        if (value && *value && !streq(value, "none"))
                add(o, "%s=%s", key, value);
}

/* Which options, and when they are left out, as libnvme's build_options()
 * (src/nvme/fabrics.c: add_int_argument() leaves out negative and zero
 * values, add_int_or_minus_one_argument() keeps ctrl_loss_tmo=-1; loop has
 * no ctrl_loss_tmo, fast_io_fail_tmo), from what the kernel showed; the
 * names are the kernel's opt_tokens (drivers/nvme/host/fabrics.c). One
 * difference: keep_alive_tmo=0 is passed when the kernel showed 0 (someone
 * asked for no keep-alive; libnvme's 0 means "unset"). */
static void add_options(Options *o, const FabricsController *c) {
        bool loop = streq(c->transport, "loop");

        if (c->nr_io_queues > 0)
                add(o, "nr_io_queues=%d", c->nr_io_queues);
        if (c->queue_size >= QUEUE_SIZE_MIN && c->queue_size <= QUEUE_SIZE_MAX)
                add(o, "queue_size=%d", c->queue_size);
        if (c->kato >= 0)
                add(o, "keep_alive_tmo=%d", c->kato);
        if (c->reconnect_delay > 0)
                add(o, "reconnect_delay=%d", c->reconnect_delay);
        if (!loop && c->ctrl_loss_tmo >= FABRICS_OPT_OFF)
                add(o, "ctrl_loss_tmo=%d", c->ctrl_loss_tmo);
        if (!loop && c->fast_io_fail_tmo >= 0) /* "off" is the kernel's default */
                add(o, "fast_io_fail_tmo=%d", c->fast_io_fail_tmo);
}

int fabrics_connect_options(const FabricsController *c, const char *host_secret, const char *ctrl_secret,
                            char **ret) {
        Options o = {};

        if (!c->subsysnqn || !c->transport)
                return -EINVAL;
        add(&o, "nqn=%s", c->subsysnqn);
        add(&o, "transport=%s", c->transport);
        add_string(&o, "traddr", c->traddr);
        add_string(&o, "trsvcid", c->trsvcid);
        add_string(&o, "host_traddr", c->host_traddr);
        add_string(&o, "host_iface", c->host_iface);
        add_string(&o, "hostnqn", c->hostnqn);
        add_string(&o, "hostid", c->hostid);
        add_options(&o, c);
        add_string(&o, "dhchap_secret", host_secret);
        add_string(&o, "dhchap_ctrl_secret", ctrl_secret);
        if (c->tls && streq(c->transport, "tcp"))
                add(&o, "tls");
        if (o.failed)
                return -ENOMEM;
        *ret = o.text;
        return 0;
}

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
