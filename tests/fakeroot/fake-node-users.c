/* SPDX-License-Identifier: Apache-2.0 */
/* What uses a block device: mounts, swaps, device-mapper holders, processes
 * with it open, and the busy marker (see fake-node-users.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-node-private.h"

#define DM_MAJOR 253

int fake_node_add_mount(FakeNode *n, const char *dev, const char *mountpoint, const char *fstype) {
        _auto_free_ char *devno = NULL, *line = NULL, *p = fnode_rpath(n, "proc/1/mountinfo");
        struct stat st;
        int r, id;

        if (!p)
                return -ENOMEM;
        r = fnode_block_devno(n, dev, &devno);
        if (r < 0)
                return r;
        /* Unique and growing without reading the table again: a benchmark
         * node appends 10,000 of them. */
        id = 100 + (stat(p, &st) == 0 ? (int) (st.st_size % 1000000000) : 0);
        if (asprintf(&line, "%d 1 %s / %s rw,relatime shared:%d - %s /dev/%s rw\n", id, devno, mountpoint, id,
                     fstype ? fstype : "xfs", dev) < 0)
                return -ENOMEM;
        return fnode_write_file_mode(p, line, "ae");
}

int fake_node_add_swap(FakeNode *n, const char *dev) {
        _auto_free_ char *p = fnode_rpath(n, "proc/swaps"), *line = NULL;

        if (!p || asprintf(&line, "/dev/%s                               partition\t1048572\t\t0\t\t-2\n", dev) < 0)
                return -ENOMEM;
        return fnode_write_file_mode(p, line, "ae");
}

int fake_node_add_dm_holder(FakeNode *n, const char *dev, const char *dm_name) {
        _auto_free_ char *dm = NULL, *dir = NULL, *abs = NULL, *devdir = NULL, *hl = NULL, *sl = NULL;
        _auto_free_ char *cls = NULL, *blk = NULL, *nm = NULL, *devno = NULL, *target = NULL, *mapper = NULL;
        char buf[256];
        ssize_t l;
        int k, r;

        k = fnode_count_entries(n, "sys/devices/virtual/block", "dm-");
        if (k < 0)
                return k;
        if (asprintf(&dm, "dm-%d", k) < 0 || asprintf(&dir, "sys/devices/virtual/block/%s", dm) < 0 ||
            asprintf(&cls, "sys/class/block/%s", dm) < 0 || asprintf(&blk, "sys/block/%s", dm) < 0 ||
            asprintf(&nm, "%s\n", dm_name) < 0 || asprintf(&devno, "%d:%d\n", DM_MAJOR, k) < 0)
                return -ENOMEM;
        abs = fnode_rpath(n, "%s/dm", dir);
        if (!abs || (r = fnode_mkdir_p(abs)) < 0)
                return abs ? r : -ENOMEM;
        free(abs);
        abs = fnode_rpath(n, "%s/holders", dir);
        if (!abs || (r = fnode_mkdir_p(abs)) < 0)
                return abs ? r : -ENOMEM;
        free(abs);
        abs = fnode_rpath(n, "%s/slaves", dir);
        if (!abs || (r = fnode_mkdir_p(abs)) < 0)
                return abs ? r : -ENOMEM;
        if ((r = fnode_writef(n, devno, "%s/dev", dir)) < 0 || (r = fnode_writef(n, nm, "%s/dm/name", dir)) < 0 ||
            (r = fnode_writef(n, "LVM-fake\n", "%s/dm/uuid", dir)) < 0 || (r = fnode_writef(n, "1048576\n", "%s/size", dir)) < 0)
                return r;
        if ((r = fnode_symlink_rel(n, dir, cls)) < 0 || (r = fnode_symlink_rel(n, dir, blk)) < 0)
                return r;

        /* Where the NVMe device really lives: resolve its class link. */
        {
                _auto_free_ char *link = fnode_rpath(n, "sys/class/block/%s", dev);

                if (!link)
                        return -ENOMEM;
                l = readlink(link, buf, sizeof(buf) - 1);
                if (l < 0)
                        return -errno;
                buf[l] = '\0';
        }
        if (strncmp(buf, "../../", 6) != 0)
                return -EINVAL;
        if (asprintf(&devdir, "sys/%s", buf + 6) < 0 || asprintf(&hl, "%s/holders/%s", devdir, dm) < 0 ||
            asprintf(&sl, "%s/slaves/%s", dir, dev) < 0)
                return -ENOMEM;
        if ((r = fnode_symlink_rel(n, dir, hl)) < 0 || (r = fnode_symlink_rel(n, devdir, sl)) < 0)
                return r;
        if ((r = fnode_writef(n, "", "dev/%s", dm)) < 0)
                return r;
        mapper = fnode_rpath(n, "dev/mapper/%s", dm_name);
        if (asprintf(&target, "../%s", dm) < 0 || !mapper)
                return -ENOMEM;
        (void) unlink(mapper);
        return symlink(target, mapper) < 0 ? -errno : 0;
}

int fake_node_add_process_fd(FakeNode *n, pid_t pid, const char *comm, const char *dev) {
        _auto_free_ char *fd = fnode_rpath(n, "proc/%d/fd", (int) pid), *line = NULL, *target = NULL, *link = NULL;
        _auto_free_ char *status = NULL;
        int k, r;

        if (!fd)
                return -ENOMEM;
        if ((r = fnode_mkdir_p(fd)) < 0)
                return r;
        if (asprintf(&line, "%s\n", comm) < 0 || asprintf(&status, "Name:\t%s\nPid:\t%d\n", comm, (int) pid) < 0)
                return -ENOMEM;
        if ((r = fnode_writef(n, line, "proc/%d/comm", (int) pid)) < 0 ||
            (r = fnode_writef(n, status, "proc/%d/status", (int) pid)) < 0 ||
            (r = fnode_writef(n, comm, "proc/%d/cmdline", (int) pid)) < 0)
                return r;
        {
                _auto_free_ char *rel = NULL;

                if (asprintf(&rel, "proc/%d/fd", (int) pid) < 0)
                        return -ENOMEM;
                k = fnode_count_entries(n, rel, "");
        }
        if (k < 0)
                return k;
        /* As the kernel shows it: the host's path, not the fake root's. */
        if (asprintf(&target, "/dev/%s", dev) < 0 || asprintf(&link, "%s/%d", fd, k + 3) < 0)
                return -ENOMEM;
        return symlink(target, link) < 0 ? -errno : 0;
}

int fake_node_claim(FakeNode *n, const char *dev) {
        return fnode_writef(n, "", "dev/.busy/%s", dev);
}
