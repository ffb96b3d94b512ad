/* SPDX-License-Identifier: Apache-2.0 */
/* NVMe over Fabrics controllers, their targets, the kernel's connect and
 * what a transport's removal does (see fake-node-fabrics.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake-node-private.h"

#define DEFAULT_HOSTNQN "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-00000000fa4e"
#define DEFAULT_HOSTID "00000000-0000-0000-0000-00000000fa4e"
#define FAKE_CPUS 4 /* num_online_cpus(): the kernel's cap on nr_io_queues */

static int write_attr(FakeNode *n, const char *dir, const char *attr, const char *value) {
        _auto_free_ char *line = NULL;

        if (asprintf(&line, "%s\n", value) < 0)
                return -ENOMEM;
        return fnode_writef(n, line, "%s/%s", dir, attr);
}

/* nvmf_get_address() (fabrics.c) and, for tcp, the src_addr that
 * nvme_tcp_get_address() appends. */
static char *address_text(const FakeFabrics *f) {
        char *s = NULL;

        if (asprintf(&s, "%s%s%s%s%s%s%s%s%s%s", f->traddr ? "traddr=" : "", f->traddr ?: "",
                     f->trsvcid ? ",trsvcid=" : "", f->trsvcid ?: "", f->host_traddr ? ",host_traddr=" : "",
                     f->host_traddr ?: "", f->host_iface ? ",host_iface=" : "", f->host_iface ?: "",
                     strcmp(f->transport, "tcp") == 0 ? ",src_addr=" : "",
                     strcmp(f->transport, "tcp") == 0 ? "127.0.0.1" : "") < 0)
                return NULL;
        return s;
}

static int write_attrs(FakeNode *n, const char *c, const FakeFabrics *f) {
        _auto_free_ char *address = address_text(f), *qc = NULL, *sq = NULL;
        const char *attrs[][2] = {
                { "transport", f->transport }, { "address", address }, { "subsysnqn", f->subsysnqn },
                { "hostnqn", f->hostnqn ?: DEFAULT_HOSTNQN }, { "hostid", f->hostid ?: DEFAULT_HOSTID },
                { "state", f->state ?: "live" }, { "cntlid", "1" }, { "model", "Linux" },
                { "serial", "fakefabrics" }, { "firmware_rev", "6.1.0" },
                { "ctrl_loss_tmo", f->ctrl_loss_tmo ?: "600" }, { "reconnect_delay", f->reconnect_delay ?: "10" },
                { "fast_io_fail_tmo", f->fast_io_fail_tmo ?: "off" }, { "kato", f->kato ?: "5" },
                { "dhchap_secret", f->dhchap_secret ?: "none" },
                { "dhchap_ctrl_secret", f->dhchap_ctrl_secret ?: "none" },
        };
        int r;

        if (!address || asprintf(&qc, "%u", f->queue_count ?: 3) < 0 || asprintf(&sq, "%u", f->sqsize ?: 127) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
                if ((r = write_attr(n, c, attrs[i][0], attrs[i][1])) < 0)
                        return r;
        if ((r = write_attr(n, c, "queue_count", qc)) < 0 || (r = write_attr(n, c, "sqsize", sq)) < 0)
                return r;
        if (f->tls_key_empty) /* 6.7-6.11: every tcp controller shows it */
                return write_attr(n, c, "tls_key", "");
        return f->tls ? write_attr(n, c, "tls_key", "0a1b2c3d") : 0;
}

static int add_namespaces(FakeNode *n, unsigned ctrl, const FakeFabrics *f) {
        for (size_t i = 0; i < f->n_namespaces; i++) {
                const FakeFabricsNamespace *ns = &f->namespaces[i];
                _auto_free_ char *head = NULL, *path = NULL;
                int r;

                r = fake_node_add_namespace(n, ctrl, ns->nsid, true, 0);
                if (r < 0)
                        return r;
                if (asprintf(&head, "sys/class/block/nvme%un%u", ctrl, ns->nsid) < 0 ||
                    asprintf(&path, "sys/class/block/nvme%uc%un%u", ctrl, ctrl, ns->nsid) < 0)
                        return -ENOMEM;
                for (const char *const *d = (const char *const[]) { head, path, NULL }; *d; d++)
                        if ((ns->nguid && (r = write_attr(n, *d, "nguid", ns->nguid)) < 0) ||
                            (ns->uuid && (r = write_attr(n, *d, "uuid", ns->uuid)) < 0))
                                return r;
        }
        return 0;
}

static const char *dash(const char *s) {
        return s && *s ? s : "-";
}

int fake_node_add_fabrics_target(FakeNode *n, const FakeFabrics *f) {
        _auto_free_ char *line = NULL, *path = fnode_rpath(n, "fake-fabrics/targets"), *dir = fnode_rpath(n, "fake-fabrics");
        size_t len;
        int r;

        if (!path || !dir || asprintf(&line, "%s %s %s %s", f->transport, dash(f->traddr), dash(f->trsvcid),
                                      f->subsysnqn) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < f->n_namespaces; i++) {
                char *longer = NULL;

                if (asprintf(&longer, "%s %u:%s:%s", line, f->namespaces[i].nsid, dash(f->namespaces[i].nguid),
                             dash(f->namespaces[i].uuid)) < 0)
                        return -ENOMEM;
                free(line);
                line = longer;
        }
        len = strlen(line);
        line = realloc(line, len + 2);
        if (!line)
                return -ENOMEM;
        strcpy(line + len, "\n");
        if ((r = fnode_mkdir_p(dir)) < 0)
                return r;
        return fnode_write_file_mode(path, line, "ae");
}

static int add_controller(FakeNode *n, unsigned ctrl, const FakeFabrics *f) {
        _auto_free_ char *c = NULL, *s = NULL, *link = NULL, *slink = NULL, *inlink = NULL, *abs = NULL, *sabs = NULL;
        _auto_free_ char *dev = NULL;
        int r;

        if (asprintf(&c, "sys/devices/virtual/nvme-fabrics/ctl/nvme%u", ctrl) < 0 ||
            asprintf(&s, "sys/devices/virtual/nvme-subsystem/nvme-subsys%u", ctrl) < 0 ||
            asprintf(&link, "sys/class/nvme/nvme%u", ctrl) < 0 ||
            asprintf(&slink, "sys/class/nvme-subsystem/nvme-subsys%u", ctrl) < 0 ||
            asprintf(&inlink, "%s/nvme%u", s, ctrl) < 0 || asprintf(&dev, "241:%u", ctrl) < 0 ||
            !(abs = fnode_rpath(n, "%s", c)) || !(sabs = fnode_rpath(n, "%s", s)))
                return -ENOMEM;
        if (fnode_exists_rel(n, link))
                return -EEXIST;
        if ((r = fnode_mkdir_p(abs)) < 0 || (r = fnode_mkdir_p(sabs)) < 0 || (r = write_attrs(n, c, f)) < 0 ||
            (r = write_attr(n, c, "dev", dev)) < 0 || (r = write_attr(n, s, "subsysnqn", f->subsysnqn)) < 0 ||
            (r = write_attr(n, s, "iopolicy", "numa")) < 0)
                return r;
        if ((r = fnode_symlink_rel(n, c, link)) < 0 || (r = fnode_symlink_rel(n, s, slink)) < 0 ||
            (r = fnode_symlink_rel(n, c, inlink)) < 0)
                return r;
        if ((r = fnode_writef(n, "", "dev/nvme%u", ctrl)) < 0)
                return r;
        return add_namespaces(n, ctrl, f);
}

int fake_node_add_fabrics_controller(FakeNode *n, unsigned ctrl, const FakeFabrics *f) {
        int r = add_controller(n, ctrl, f);

        return r < 0 ? r : fake_node_add_fabrics_target(n, f);
}

int fnode_module_devices(FakeNode *n, const char *module, bool added) {
        _auto_free_ char *path = NULL;
        int r;

        if (strcmp(module, "nvme_fabrics") != 0)
                return 0;
        /* misc_register() with a dynamic minor; the number is what the
         * product checks its open of the node against */
        if (added) {
                _auto_free_ char *dir = fnode_rpath(n, "sys/class/misc/nvme-fabrics");

                if (!dir)
                        return -ENOMEM;
                r = fnode_mkdir_p(dir);
                if (r >= 0)
                        r = fnode_writef(n, "10:122\n", "sys/class/misc/nvme-fabrics/dev");
                return r < 0 ? r : fnode_writef(n, "", "dev/nvme-fabrics");
        }
        path = fnode_rpath(n, "dev/nvme-fabrics");
        if (!path || fnode_rm_rf(path) < 0)
                return path ? -EIO : -ENOMEM;
        free(path);
        path = fnode_rpath(n, "sys/class/misc/nvme-fabrics");
        return path ? fnode_rm_rf(path) : -ENOMEM;
}
