/* SPDX-License-Identifier: Apache-2.0 */
/* NVMe controllers, subsystems, namespaces and their block devices in sysfs
 * (see fake-node-nvme.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake-node-private.h"

#define NVME_BLOCK_MAJOR 259

static char *ctrl_rel(unsigned ctrl) {
        char *s;

        return asprintf(&s, "sys/devices/pci0000:00/0000:00:%02x.0/nvme/nvme%u", 4 + ctrl, ctrl) < 0 ? NULL : s;
}

char *fnode_ctrl_dir_rel(FakeNode *n, unsigned ctrl) {
        _auto_free_ char *link = fnode_rpath(n, "sys/class/nvme/nvme%u", ctrl);
        char *resolved = link ? realpath(link, NULL) : NULL, *rel;
        size_t rl = strlen(fake_node_root(n));

        /* a controller made elsewhere (a fabrics one): where its class link points */
        if (resolved && strncmp(resolved, fake_node_root(n), rl) == 0 && resolved[rl] == '/') {
                rel = strdup(resolved + rl + 1);
                free(resolved);
                return rel;
        }
        free(resolved);
        return ctrl_rel(ctrl);
}

static char *subsys_rel(unsigned ctrl) {
        char *s;

        return asprintf(&s, "sys/devices/virtual/nvme-subsystem/nvme-subsys%u", ctrl) < 0 ? NULL : s;
}

int fake_node_add_controller(FakeNode *n, unsigned ctrl, const char *transport, const char *serial,
                             const char *model) {
        _auto_free_ char *c = ctrl_rel(ctrl), *s = subsys_rel(ctrl), *cabs = NULL, *sabs = NULL;
        _auto_free_ char *link = NULL, *slink = NULL, *nqn = NULL, *ser = NULL, *addr = NULL, *dev = NULL;
        _auto_free_ char *inlink = NULL, *mod = NULL, *tr = NULL;
        int r;

        if (!c || !s)
                return -ENOMEM;
        if (asprintf(&link, "sys/class/nvme/nvme%u", ctrl) < 0)
                return -ENOMEM;
        if (fnode_exists_rel(n, c) || fnode_exists_rel(n, link))
                return 0;
        cabs = fnode_rpath(n, "%s", c);
        sabs = fnode_rpath(n, "%s", s);
        if (!cabs || !sabs || asprintf(&slink, "sys/class/nvme-subsystem/nvme-subsys%u", ctrl) < 0 ||
            asprintf(&inlink, "%s/nvme%u", s, ctrl) < 0 ||
            asprintf(&nqn, "nqn.2019-08.org.qemu:fake-subsys%u\n", ctrl) < 0 ||
            asprintf(&ser, "%s\n", serial ? serial : "") < 0 ||
            asprintf(&addr, "0000:00:%02x.0\n", 4 + ctrl) < 0 || asprintf(&dev, "241:%u\n", ctrl) < 0 ||
            asprintf(&mod, "%s\n", model ? model : "QEMU NVMe Ctrl") < 0 ||
            asprintf(&tr, "%s\n", transport ? transport : "pcie") < 0)
                return -ENOMEM;
        if (!serial) {
                free(ser);
                if (asprintf(&ser, "FAKESERIAL%04u\n", ctrl) < 0)
                        return -ENOMEM;
        }
        if ((r = fnode_mkdir_p(cabs)) < 0 || (r = fnode_mkdir_p(sabs)) < 0)
                return r;
        if ((r = fnode_writef(n, tr, "%s/transport", c)) < 0 || (r = fnode_writef(n, addr, "%s/address", c)) < 0 ||
            (r = fnode_writef(n, ser, "%s/serial", c)) < 0 || (r = fnode_writef(n, mod, "%s/model", c)) < 0 ||
            (r = fnode_writef(n, "1.0\n", "%s/firmware_rev", c)) < 0 || (r = fnode_writef(n, nqn, "%s/subsysnqn", c)) < 0 ||
            (r = fnode_writef(n, "live\n", "%s/state", c)) < 0 || (r = fnode_writef(n, dev, "%s/dev", c)) < 0 ||
            (r = fnode_writef(n, "1\n", "%s/cntlid", c)) < 0 || (r = fnode_writef(n, nqn, "%s/subsysnqn", s)) < 0 ||
            (r = fnode_writef(n, ser, "%s/serial", s)) < 0 || (r = fnode_writef(n, mod, "%s/model", s)) < 0 ||
            (r = fnode_writef(n, "numa\n", "%s/iopolicy", s)) < 0)
                return r;
        if ((r = fnode_symlink_rel(n, c, link)) < 0 || (r = fnode_symlink_rel(n, s, slink)) < 0)
                return r;
        if ((r = fnode_symlink_rel(n, c, inlink)) < 0)
                return r;
        /* The controller's char device: what the daemon's pin holds open. */
        return fnode_writef(n, "", "dev/nvme%u", ctrl);
}

static int next_minor(FakeNode *n) {
        if (n->next_minor < 0) {
                int c = fnode_count_entries(n, "sys/class/block", "nvme");

                if (c < 0)
                        return c;
                n->next_minor = c;
        }
        return n->next_minor++;
}

static int block_dev_create(FakeNode *n, const char *dir_rel, const char *name, bool with_dev_node,
                            unsigned partition, unsigned nsid, bool hidden) {
        _auto_free_ char *abs = fnode_rpath(n, "%s/holders", dir_rel), *cls = NULL, *blk = NULL;
        char buf[64];
        int minor, r;

        if (!abs)
                return -ENOMEM;
        minor = next_minor(n);
        if (minor < 0)
                return minor;
        if ((r = fnode_mkdir_p(abs)) < 0)
                return r;
        snprintf(buf, sizeof(buf), "%d:%d\n", NVME_BLOCK_MAJOR, minor);
        if ((r = fnode_writef(n, buf, "%s/dev", dir_rel)) < 0 ||
            (r = fnode_writef(n, partition ? "1048576\n" : "4194304\n", "%s/size", dir_rel)) < 0 ||
            (r = fnode_writef(n, "0\n", "%s/ro", dir_rel)) < 0 || (r = fnode_writef(n, "0\n", "%s/removable", dir_rel)) < 0)
                return r;
        if (partition) {
                snprintf(buf, sizeof(buf), "%u\n", partition);
                if ((r = fnode_writef(n, buf, "%s/partition", dir_rel)) < 0 ||
                    (r = fnode_writef(n, "2048\n", "%s/start", dir_rel)) < 0)
                        return r;
        } else {
                snprintf(buf, sizeof(buf), "%u\n", nsid);
                if ((r = fnode_writef(n, buf, "%s/nsid", dir_rel)) < 0)
                        return r;
                snprintf(buf, sizeof(buf), "eui.%016x\n", nsid * 0x1111u + (unsigned) minor);
                if ((r = fnode_writef(n, buf, "%s/wwid", dir_rel)) < 0)
                        return r;
        }
        if (hidden && (r = fnode_writef(n, "1\n", "%s/hidden", dir_rel)) < 0)
                return r;
        if (asprintf(&cls, "sys/class/block/%s", name) < 0)
                return -ENOMEM;
        if ((r = fnode_symlink_rel(n, dir_rel, cls)) < 0)
                return r;
        if (!partition) {
                if (asprintf(&blk, "sys/block/%s", name) < 0)
                        return -ENOMEM;
                if ((r = fnode_symlink_rel(n, dir_rel, blk)) < 0)
                        return r;
        }
        if (!with_dev_node)
                return 0;
        return fnode_writef(n, "", "dev/%s", name);
}

int fake_node_add_namespace(FakeNode *n, unsigned ctrl, unsigned nsid, bool multipath, unsigned partitions) {
        _auto_free_ char *c = NULL, *s = subsys_rel(ctrl), *name = NULL, *dir = NULL;
        int r;

        r = fake_node_add_controller(n, ctrl, NULL, NULL, NULL);
        if (r < 0)
                return r;
        c = fnode_ctrl_dir_rel(n, ctrl);
        if (!c || !s)
                return -ENOMEM;
        if (asprintf(&name, "nvme%un%u", ctrl, nsid) < 0 ||
            asprintf(&dir, "%s/%s", multipath ? s : c, name) < 0)
                return -ENOMEM;

        r = block_dev_create(n, dir, name, true, 0, nsid, false);
        if (r < 0)
                return r;
        if (multipath) {
                _auto_free_ char *path = NULL, *pdir = NULL, *mlink = NULL, *dlink = NULL, *mdir = NULL;

                if (asprintf(&path, "nvme%uc%un%u", ctrl, ctrl, nsid) < 0 ||
                    asprintf(&pdir, "%s/%s", c, path) < 0 || asprintf(&mdir, "%s/multipath", dir) < 0 ||
                    asprintf(&mlink, "%s/multipath/%s", dir, path) < 0 ||
                    asprintf(&dlink, "%s/device", pdir) < 0)
                        return -ENOMEM;
                r = block_dev_create(n, pdir, path, false, 0, nsid, true);
                if (r < 0)
                        return r;
                {
                        _auto_free_ char *mabs = fnode_rpath(n, "%s", mdir);

                        if (!mabs || (r = fnode_mkdir_p(mabs)) < 0)
                                return r < 0 ? r : -ENOMEM;
                }
                if ((r = fnode_symlink_rel(n, pdir, mlink)) < 0 || (r = fnode_symlink_rel(n, c, dlink)) < 0)
                        return r;
        } else {
                _auto_free_ char *dlink = NULL;

                if (asprintf(&dlink, "%s/device", dir) < 0)
                        return -ENOMEM;
                if ((r = fnode_symlink_rel(n, c, dlink)) < 0)
                        return r;
        }

        for (unsigned p = 1; p <= partitions; p++) {
                _auto_free_ char *pname = NULL, *pdir = NULL;

                if (asprintf(&pname, "%sp%u", name, p) < 0 || asprintf(&pdir, "%s/%s", dir, pname) < 0)
                        return -ENOMEM;
                r = block_dev_create(n, pdir, pname, true, p, nsid, false);
                if (r < 0)
                        return r;
        }
        return 0;
}

int fnode_block_devno(FakeNode *n, const char *dev, char **ret) {
        _auto_free_ char *rel = NULL;

        if (asprintf(&rel, "sys/class/block/%s/dev", dev) < 0)
                return -ENOMEM;
        return fnode_read_line_rel(n, rel, ret);
}
