/* SPDX-License-Identifier: Apache-2.0 */
/* bench-node ROOT NAMESPACES MOUNTS: a synthetic busy node for the in-use
 * check benchmark, built with the fake-node library (tests/fakeroot).
 *
 * Shape (everything scales with the two numbers, so that growth can be read
 * against "mounts + namespaces"):
 *  - NAMESPACES namespaces on NAMESPACES/16 controllers (rounded up); every
 *    fourth controller is a multipath subsystem (heads nvmeXnY with hidden
 *    paths); one namespace in four has two partitions;
 *  - MOUNTS lines in /proc/1/mountinfo: one in eight on an NVMe namespace
 *    or partition (the first half of them, several mounts each, like kubelet
 *    bind mounts of a data disk), the rest tmpfs/overlay/proc/shm lines with
 *    anonymous devnos, as on an OpenShift worker (secrets, projected
 *    volumes, container rootfs);
 *  - one swap partition per 256 namespaces, one dm target per 128;
 *  - NAMESPACES/4 processes with 8 fds each (files, sockets, pipes); every
 *    second one also holds an NVMe device open.
 * Plus what the real kernel has and fake-node does not make, because only
 * util-linux needs it: /sys/dev/block/<maj:min> links and /proc/self.
 *
 * Prints one line: what was built. */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-node.h"

#define NS_PER_CTRL 16

typedef struct Counts {
        unsigned namespaces, partitions, nvme_mounts, other_mounts, swaps, dms, processes, fds;
} Counts;

static int fail(const char *what, int r) {
        fprintf(stderr, "bench-node: %s: %s\n", what, strerror(r < 0 ? -r : r));
        return 1;
}

static bool has_partitions(unsigned k) {
        return k % 4 == 1;
}

/* The name of block device j (0-based) among the first `k` namespaces'
 * devices: namespace k/..., cycling through whole disks and partitions. */
static void device_name(unsigned k, unsigned part, char *buf, size_t size) {
        unsigned ctrl = k / NS_PER_CTRL, nsid = k % NS_PER_CTRL + 1;

        if (part)
                snprintf(buf, size, "nvme%un%up%u", ctrl, nsid, part);
        else
                snprintf(buf, size, "nvme%un%u", ctrl, nsid);
}

static int add_namespaces(FakeNode *n, unsigned count, Counts *c) {
        for (unsigned k = 0; k < count; k++) {
                unsigned ctrl = k / NS_PER_CTRL, nsid = k % NS_PER_CTRL + 1;
                int r = fake_node_add_namespace(n, ctrl, nsid, ctrl % 4 == 3, has_partitions(k) ? 2 : 0);

                if (r < 0)
                        return r;
                c->namespaces++;
                c->partitions += has_partitions(k) ? 2 : 0;
        }
        return 0;
}

static int add_nvme_mounts(FakeNode *n, unsigned namespaces, unsigned count, Counts *c) {
        unsigned half = namespaces / 2 ? namespaces / 2 : 1;
        char dev[64], mp[160];

        for (unsigned i = 0; i < count; i++) {
                unsigned k = i % half;
                int r;

                /* A partitioned namespace is mounted through its first partition. */
                device_name(k, has_partitions(k) ? 1 : 0, dev, sizeof(dev));
                snprintf(mp, sizeof(mp), "/var/lib/kubelet/pods/%08x-0000-4000-8000-%012x/volumes/kubernetes.io~local-volume/data", i, k);
                r = fake_node_add_mount(n, dev, mp, "xfs");
                if (r < 0)
                        return r;
                c->nvme_mounts++;
        }
        return 0;
}

/* The bulk of a worker's table: anonymous-devno filesystems. Written in one
 * go, in the kernel's mountinfo format, with ids past fake-node's. */
static int add_other_mounts(FakeNode *n, unsigned count, Counts *c) {
        static const char *const kinds[][2] = {
                { "tmpfs", "tmpfs" }, { "overlay", "overlay" }, { "tmpfs", "shm" }, { "proc", "proc" },
                { "tmpfs", "tmpfs" }, { "tmpfs", "tmpfs" }, { "overlay", "overlay" }, { "mqueue", "mqueue" },
        };
        char *path = NULL;
        FILE *f;

        if (asprintf(&path, "%s/proc/1/mountinfo", fake_node_root(n)) < 0)
                return -ENOMEM;
        f = fopen(path, "ae");
        free(path);
        if (!f)
                return -errno;
        for (unsigned i = 0; i < count; i++) {
                const char *fstype = kinds[i % 8][0], *source = kinds[i % 8][1];

                fprintf(f, "%u 1 0:%u / /var/lib/kubelet/pods/%08x-1111-4000-8000-%012x/volumes/vol%u rw,nosuid,nodev,relatime shared:%u - %s %s rw,size=4096k\n",
                        1000000000u + i, 40 + i, i / 4, (unsigned) i, i % 4, 500000 + i, fstype, source);
                c->other_mounts++;
        }
        return fclose(f) < 0 ? -errno : 0;
}

static int add_swaps_and_dms(FakeNode *n, unsigned namespaces, Counts *c) {
        char dev[64], name[64];
        int r;

        /* In the second half of the namespaces, on partitioned ones only. */
        for (unsigned k = namespaces / 2; k < namespaces; k++) {
                if (!has_partitions(k))
                        continue;
                if (k % 256 == 129) {
                        device_name(k, 2, dev, sizeof(dev));
                        if ((r = fake_node_add_swap(n, dev)) < 0)
                                return r;
                        c->swaps++;
                }
                if (k % 128 == 65) {
                        device_name(k, 1, dev, sizeof(dev));
                        snprintf(name, sizeof(name), "vg%u-lv0", k);
                        if ((r = fake_node_add_dm_holder(n, dev, name)) < 0)
                                return r;
                        c->dms++;
                }
        }
        return 0;
}

static int add_processes(FakeNode *n, unsigned namespaces, Counts *c) {
        static const char *const others[] = {
                "/dev/null", "socket:[40961]", "pipe:[40962]", "/var/log/app.log",
                "anon_inode:[eventpoll]", "/etc/passwd", "socket:[40963]",
        };
        unsigned count = namespaces / 4;
        char dev[64], *fd = NULL, *link = NULL;
        int r;

        for (unsigned p = 0; p < count; p++) {
                pid_t pid = 10000 + (pid_t) p;

                /* fake-node makes comm/status/cmdline with the first fd. */
                device_name(namespaces - 1 - p % (namespaces / 2 ? namespaces / 2 : 1), 0, dev, sizeof(dev));
                if ((r = fake_node_add_process_fd(n, pid, p % 2 ? "java" : "postgres", dev)) < 0)
                        return r;
                c->fds++;
                if (asprintf(&fd, "%s/proc/%d/fd", fake_node_root(n), (int) pid) < 0)
                        return -ENOMEM;
                /* Every other process keeps no NVMe fd: its first link goes elsewhere. */
                if (p % 2) {
                        if (asprintf(&link, "%s/3", fd) < 0)
                                return -ENOMEM;
                        (void) unlink(link);
                        if (symlink("/var/lib/app/data.db", link) < 0)
                                return -errno;
                        free(link);
                        link = NULL;
                }
                for (unsigned k = 0; k < sizeof(others) / sizeof(others[0]); k++) {
                        if (asprintf(&link, "%s/%u", fd, 4 + k) < 0)
                                return -ENOMEM;
                        if (symlink(others[k], link) < 0 && errno != EEXIST)
                                return -errno;
                        free(link);
                        link = NULL;
                        c->fds++;
                }
                free(fd);
                fd = NULL;
                c->processes++;
        }
        return 0;
}

/* /sys/dev/block/<maj:min> -> ../../devices/...: how lsblk finds a
 * device's sysfs directory. From each /sys/class/block link. */
static int add_dev_block_links(FakeNode *n) {
        char *cls = NULL, *devb = NULL, *cmd = NULL;
        int r;

        if (asprintf(&cls, "%s/sys/class/block", fake_node_root(n)) < 0 ||
            asprintf(&devb, "%s/sys/dev/block", fake_node_root(n)) < 0)
                return -ENOMEM;
        /* The shell is the short way to walk a few thousand links here; the
         * paths are ours (no spaces, no quotes). */
        r = asprintf(&cmd,
                     "mkdir -p '%s' && cd '%s' && for l in *; do t=$(readlink \"$l\"); "
                     "ln -sfn \"../../${t#../../}\" \"%s/$(cat \"$l/dev\")\"; done",
                     devb, cls, devb);
        free(cls);
        free(devb);
        if (r < 0)
                return -ENOMEM;
        r = system(cmd);
        free(cmd);
        return r == 0 ? 0 : -EIO;
}

static int add_proc_self(FakeNode *n) {
        char *p = NULL;
        int r = 0;

        if (asprintf(&p, "%s/proc/self", fake_node_root(n)) < 0)
                return -ENOMEM;
        if (symlink("1", p) < 0 && errno != EEXIST)
                r = -errno;
        free(p);
        return r;
}

int main(int argc, char **argv) {
        FakeNode *n = NULL;
        Counts c = {};
        unsigned namespaces, mounts, nvme_mounts;
        int r;

        if (argc != 4 || argv[1][0] != '/') {
                fprintf(stderr, "usage: bench-node /ABSOLUTE/ROOT NAMESPACES MOUNTS\n");
                return 2;
        }
        namespaces = (unsigned) strtoul(argv[2], NULL, 10);
        mounts = (unsigned) strtoul(argv[3], NULL, 10);
        nvme_mounts = mounts / 8;
        if (namespaces < 2 || mounts < 8)
                return fail("at least 2 namespaces and 8 mounts", EINVAL);

        if ((r = fake_node_new(argv[1], &n)) < 0)
                return fail(argv[1], r);
        if ((r = add_namespaces(n, namespaces, &c)) < 0)
                return fail("namespaces", r);
        if ((r = add_nvme_mounts(n, namespaces, nvme_mounts, &c)) < 0)
                return fail("nvme mounts", r);
        /* The skeleton's / line counts as one of the mounts. */
        if ((r = add_other_mounts(n, mounts - nvme_mounts - 1, &c)) < 0)
                return fail("other mounts", r);
        if ((r = add_swaps_and_dms(n, namespaces, &c)) < 0)
                return fail("swaps and dm targets", r);
        if ((r = add_processes(n, namespaces, &c)) < 0)
                return fail("processes", r);
        if ((r = add_dev_block_links(n)) < 0 || (r = add_proc_self(n)) < 0)
                return fail("util-linux links", r);
        printf("namespaces=%u partitions=%u mounts=%u nvme_mounts=%u swaps=%u dm=%u processes=%u fds=%u\n",
               c.namespaces, c.partitions, c.nvme_mounts + c.other_mounts + 1, c.nvme_mounts, c.swaps, c.dms,
               c.processes, c.fds);
        fake_node_free(n);
        return 0;
}
