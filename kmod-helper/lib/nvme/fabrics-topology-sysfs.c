/* SPDX-License-Identifier: Apache-2.0 */
/* fabrics_topology_read(): the fabrics controllers of /sys/class/nvme and
 * their namespaces, through host-root (the layout and formats are in
 * fabrics-topology.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/host-root.h"
#include "nvme/fabrics-topology-sysfs.h"
#include "nvme/fabrics-topology-public.h"
#include "nvme/fabrics-topology.h"
#include "nvme/nvme-controllers.h"
#include "nvme/nvme-names.h"
#include "nvme/nvme-sysfs.h"
#include "util/fileio.h"
#include "util/parse-util.h"
#include "util/string-util.h"
#include "util/strv.h"

/* tcp, rdma, fc, loop: the fabrics transports (pcie and anything we do not
 * know, such as Apple's, are not fabrics). */
static bool is_fabrics_transport(const char *transport) {
        const char *m = nvme_transport_module(transport);

        return m && !streq(m, "nvme");
}

static int read_option(int dfd, const char *attr, int *ret) {
        _cleanup_free_ char *text = NULL;
        int r = nvme_sysfs_read_opt_at(dfd, attr, &text);

        if (r < 0)
                return r;
        if (text && fabrics_parse_option(text, ret) < 0)
                *ret = FABRICS_OPT_UNSET; /* a format we do not know: the kernel's default */
        return 0;
}

/* dhchap_secret shows "none" when not set (nvme_ctrl_dhchap_secret_show(),
 * core.c 6.1 / sysfs.c 6.12), else the secret, "DHHC-1:...". Only the
 * first five bytes are read ("none\n" or "DHHC-"): whoever reads the
 * topology (status, plan, the capture's record) never holds a secret. */
static int read_secret_present(int dfd, const char *attr, bool *ret) {
        _cleanup_close_ int fd = openat(dfd, attr, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        char head[5];
        ssize_t n;

        if (fd < 0 && (errno == EACCES || errno == EPERM)) /* not root: we cannot know; say so by "present" */
                return *ret = true, 0;
        if (fd < 0 && errno == ENOENT) /* no in-band authentication (before 6.0) */
                return *ret = false, 0;
        if (fd < 0)
                return -errno;
        do
                n = read(fd, head, sizeof(head));
        while (n < 0 && errno == EINTR);
        if (n < 0 && (errno == EACCES || errno == EPERM))
                return *ret = true, 0;
        if (n < 0)
                return errno == ENODEV ? -ENOENT : -errno;
        *ret = n > 0 && head[0] != '\n' && !(n >= 4 && memcmp(head, "none", 4) == 0);
        return 0;
}

static int read_flag(int dfd, const char *attr, bool *ret) {
        int v = FABRICS_OPT_UNSET, r = read_option(dfd, attr, &v);

        *ret = r >= 0 && v > 0;
        return r;
}

static void drop_empty(char **s) {
        if (*s && !**s) {
                free(*s);
                *s = NULL;
        }
}

/* TLS is on when 6.12's tls_configured_key says so, or a tls_key shows a
 * key: 6.7-6.11 show tls_key, empty, on every tcp controller, so its mere
 * presence says nothing. */
static int read_tls_attr(int dfd, const char *attr, char **ret, bool *unknown) {
        int r = nvme_sysfs_read_opt_at(dfd, attr, ret);

        if (r == -ENOMEM || r == -ENOENT) /* ENOENT: the controller went away */
                return r;
        if (r < 0) { /* there, but not readable: the state is unknown, not off */
                *ret = NULL;
                *unknown = true;
        }
        return 0;
}

static int read_tls(int dfd, FabricsController *c) {
        _cleanup_free_ char *key = NULL;
        int r;

        if ((r = read_tls_attr(dfd, "tls_keyring", &c->tls_keyring, &c->tls_unknown)) < 0 ||
            (r = read_tls_attr(dfd, "tls_configured_key", &c->tls_configured_key, &c->tls_unknown)) < 0 ||
            (r = read_tls_attr(dfd, "tls_key", &key, &c->tls_unknown)) < 0)
                return r;
        drop_empty(&c->tls_keyring);
        drop_empty(&c->tls_configured_key);
        c->tls = c->tls_configured_key || (key && *key);
        return 0;
}

static int read_options(int dfd, FabricsController *c) {
        int queue_count = FABRICS_OPT_UNSET, sqsize = FABRICS_OPT_UNSET, r;

        if ((r = read_option(dfd, "ctrl_loss_tmo", &c->ctrl_loss_tmo)) < 0 ||
            (r = read_option(dfd, "reconnect_delay", &c->reconnect_delay)) < 0 ||
            (r = read_option(dfd, "fast_io_fail_tmo", &c->fast_io_fail_tmo)) < 0 ||
            (r = read_option(dfd, "kato", &c->kato)) < 0 || (r = read_option(dfd, "queue_count", &queue_count)) < 0 ||
            (r = read_option(dfd, "sqsize", &sqsize)) < 0 ||
            (r = read_option(dfd, "nr_write_queues", &c->nr_write_queues)) < 0 ||
            (r = read_option(dfd, "nr_poll_queues", &c->nr_poll_queues)) < 0 ||
            (r = read_flag(dfd, "hdr_digest", &c->hdr_digest)) < 0 || (r = read_flag(dfd, "data_digest", &c->data_digest)) < 0)
                return r;
        /* queue_count counts the admin queue; sqsize is 0's based. */
        c->nr_io_queues = queue_count >= 1 ? queue_count - 1 : FABRICS_OPT_UNSET;
        c->queue_size = sqsize >= 0 ? sqsize + 1 : FABRICS_OPT_UNSET;
        if ((r = read_secret_present(dfd, "dhchap_secret", &c->dhchap_secret)) < 0 ||
            (r = read_secret_present(dfd, "dhchap_ctrl_secret", &c->dhchap_ctrl_secret)) < 0)
                return r;
        return read_tls(dfd, c);
}

/* The ids of one namespace block device (/sys/class/block/<name>). */
static int read_namespace(const char *name, FabricsController *c) {
        _cleanup_free_ char *dir = NULL, *nsid = NULL;
        _cleanup_close_ int dfd = -EBADF;
        FabricsNamespace *n;
        int r;

        r = host_pathf(&dir, "/sys/class/block/%s", name);
        if (r < 0)
                return r;
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return errno == ENOENT || errno == ENOTDIR ? 0 : -errno; /* gone meanwhile */
        n = fabrics_controller_add_namespace(c);
        if (!n || !(n->name = strdup(name)))
                return -ENOMEM;
        if ((r = nvme_sysfs_read_opt_at(dfd, "nsid", &nsid)) < 0 || (r = nvme_sysfs_read_opt_at(dfd, "nguid", &n->nguid)) < 0 ||
            (r = nvme_sysfs_read_opt_at(dfd, "uuid", &n->uuid)) < 0 || (r = nvme_sysfs_read_opt_at(dfd, "eui", &n->eui)) < 0)
                return r;
        if (nsid)
                (void) safe_atou(nsid, &n->nsid);
        return 0;
}

/* "nvme1c2n3" (the hidden path of controller 2 to head 3 of subsystem 1)
 * -> "nvme1n3", the head the node's users open. */
static int head_of_path(const char *path, char **ret) {
        const char *c = strchr(path + 4, 'c'), *n = c ? strchr(c, 'n') : NULL;

        if (!c || !n)
                return -EINVAL;
        *ret = strdup_printf("%.*s%s", (int) (c - path), path, n);
        return *ret ? 0 : -ENOMEM;
}

static int read_namespaces(int dfd, FabricsController *c) {
        _cleanup_strv_free_ char **entries = NULL, **seen = strv_new_empty();
        int r = read_dir_names_at(dfd, ".", &entries);

        if (r < 0)
                return r == -ENOENT || r == -ENODEV ? 0 : r;
        if (!seen)
                return -ENOMEM;
        STRV_FOREACH(e, entries) {
                _cleanup_free_ char *name = NULL;

                if (nvme_name_is_hidden_path(*e))
                        r = head_of_path(*e, &name);
                else if (nvme_name_is_namespace(*e))
                        r = (name = strdup(*e)) ? 0 : -ENOMEM;
                else
                        continue;
                if (r < 0)
                        return r;
                if (strv_contains(seen, name))
                        continue;
                if ((r = strv_extend(&seen, name)) < 0 || (r = read_namespace(name, c)) < 0)
                        return r;
        }
        return 0;
}

static int read_identity(int dfd, FabricsController *c) {
        _cleanup_free_ char *address = NULL;
        int r;

        if ((r = nvme_sysfs_read_opt_at(dfd, "subsysnqn", &c->subsysnqn)) < 0 || (r = nvme_sysfs_read_opt_at(dfd, "hostnqn", &c->hostnqn)) < 0 ||
            (r = nvme_sysfs_read_opt_at(dfd, "hostid", &c->hostid)) < 0 || (r = nvme_sysfs_read_opt_at(dfd, "state", &c->state)) < 0 ||
            (r = nvme_sysfs_read_opt_at(dfd, "address", &address)) < 0)
                return r;
        if (!c->subsysnqn)
                return -ENOENT; /* half gone: not a connection we can name */
        return address ? fabrics_parse_address(address, c) : 0;
}

/* One controller: 0 and nothing added when it is not fabrics or went away. */
static int read_controller(FabricsTopology *t, const char *class_dir, const char *name) {
        _cleanup_free_ char *dir = NULL, *transport = NULL;
        _cleanup_close_ int dfd = -EBADF;
        FabricsController *c;
        int r;

        if (asprintf(&dir, "%s/%s", class_dir, name) < 0)
                return -ENOMEM;
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
        r = nvme_sysfs_read_opt_at(dfd, "transport", &transport);
        if (r < 0 || !transport || !is_fabrics_transport(transport))
                return r;
        c = fabrics_topology_add_controller(t);
        if (!c || !(c->name = strdup(name)))
                return -ENOMEM;
        c->transport = TAKE_PTR(transport);
        r = read_identity(dfd, c);
        if (r >= 0)
                r = read_options(dfd, c);
        if (r >= 0)
                r = read_namespaces(dfd, c);
        if (r == -ENOENT) { /* deleted while we read it: leave it out */
                fabrics_topology_drop_last(t);
                return 0;
        }
        return r;
}

int fabrics_topology_read(FabricsTopology **ret) {
        return fabrics_controllers_read_each(read_controller, ret);
}
