/* SPDX-License-Identifier: Apache-2.0 */
/* Mount namespaces other than the host's (see fake-node-mntns.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-node-private.h"

static int ns_link(FakeNode *n, pid_t pid, unsigned long long ns) {
        _auto_free_ char *dir = fnode_rpath(n, "proc/%d/ns", (int) pid), *link = NULL, *target = NULL;
        int r;

        if (!dir || asprintf(&link, "%s/mnt", dir) < 0 || asprintf(&target, "mnt:[%llu]", ns) < 0)
                return -ENOMEM;
        if ((r = fnode_mkdir_p(dir)) < 0)
                return r;
        (void) unlink(link);
        return symlink(target, link) < 0 ? -errno : 0;
}

int fake_node_set_mount_namespace(FakeNode *n, pid_t pid, unsigned long long ns, const char *comm) {
        _auto_free_ char *comm_line = NULL, *host = NULL, *table = NULL;
        int r;

        if (!fnode_exists_rel(n, "proc/1/ns/mnt") && (r = ns_link(n, 1, FAKE_NODE_HOST_MNT_NS)) < 0)
                return r;
        if ((r = ns_link(n, pid, ns)) < 0)
                return r;
        if (asprintf(&comm_line, "%s\n", comm) < 0)
                return -ENOMEM;
        if ((r = fnode_writef(n, comm_line, "proc/%d/comm", (int) pid)) < 0)
                return r;
        {
                _auto_free_ char *rel = NULL;

                if (asprintf(&rel, "proc/%d/mountinfo", (int) pid) < 0)
                        return -ENOMEM;
                if (fnode_exists_rel(n, rel))
                        return 0;
        }
        host = fnode_rpath(n, "proc/1/mountinfo");
        if (!host)
                return -ENOMEM;
        r = fnode_read_file(host, &table);
        if (r == -ENOENT)
                table = strdup("");
        else if (r < 0)
                return r;
        if (!table)
                return -ENOMEM;
        return fnode_writef(n, table, "proc/%d/mountinfo", (int) pid);
}

int fake_node_add_namespace_mount(FakeNode *n, pid_t pid, const char *dev, const char *mountpoint, const char *fstype) {
        _auto_free_ char *devno = NULL, *line = NULL, *p = fnode_rpath(n, "proc/%d/mountinfo", (int) pid);
        int r;

        if (!p)
                return -ENOMEM;
        if ((r = fnode_block_devno(n, dev, &devno)) < 0)
                return r;
        if (asprintf(&line, "%d 1 %s / %s rw,relatime - %s /dev/%s rw\n", 900 + (int) (pid % 1000), devno, mountpoint,
                     fstype ? fstype : "xfs", dev) < 0)
                return -ENOMEM;
        if ((r = fnode_write_file_mode(p, line, "ae")) < 0)
                return r;
        return fnode_writef(n, "", "dev/.busy/%s", dev);
}
