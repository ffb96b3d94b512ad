/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/host-root.h"
#include "usage/process-users.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

/* Pids we could not look into: reported once, with the first few named. */
#define UNREADABLE_PIDS_NAMED 8

static ProcessFdSource fd_source;
static void *fd_source_userdata;

void process_users_set_source(ProcessFdSource source, void *userdata) {
        fd_source = source;
        fd_source_userdata = userdata;
}

static const NvmeBlockDevice *nvme_entry(const UsageScan *s, const DeviceIndexEntry *e, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (e[i].kind == DEVICE_INDEX_NVME)
                        return &s->devices->devices[e[i].ref];
        return NULL;
}

const NvmeBlockDevice *process_fd_match(const UsageScan *s, const char *link, bool has_rdev, dev_t rdev) {
        const DeviceIndexEntry *e;
        size_t n = 0;

        if (has_rdev && rdev != 0 && (e = device_index_by_devno(&s->index, rdev, &n)))
                return nvme_entry(s, e, n);
        /* The link text of a block device fd is the device's /dev path, also
         * when it was opened through a /dev/disk/by-* link. */
        if (link && strneq(link, "/dev/", 5) && !strchr(link + 5, '/') &&
            (e = device_index_by_name(&s->index, link + 5, &n)))
                return nvme_entry(s, e, n);
        return NULL;
}

static int report(UsageScan *s, pid_t pid, const NvmeBlockDevice *d) {
        _cleanup_free_ char *path = NULL, *comm = NULL;
        int r;

        r = host_pathf(&path, "/proc/%d/comm", (int) pid);
        if (r < 0)
                return r;
        if (read_one_line_file(path, &comm) < 0)
                comm = NULL; /* exited meanwhile: still worth naming by pid */
        r = usage_collector_add(&s->collector, USAGE_OPEN_BY_PROCESS, d->name, comm ?: "?", NULL, (int) pid);
        return r < 0 ? r : 0;
}

/* Fail closed: a process whose open files we could not read may hold any
 * namespace open (a plain open is no exclusive claim: the kernel's answer
 * would not show it), so every namespace is unchecked, not free. */
static int block_every_namespace(UsageScan *s, const char *why) {
        const NvmeBlockDevices *d = s->devices;

        for (size_t i = 0; i < d->n_devices; i++) {
                int r;

                if (d->devices[i].is_partition)
                        continue;
                r = usage_collector_add(&s->collector, USAGE_UNCHECKED, d->devices[i].name, NULL, why, 0);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int block_unreadable(UsageScan *s, const ProcessFdList *l) {
        _cleanup_free_ char *why = NULL, *pids = NULL;

        if (l->n_unreadable == 0)
                return 0;
        for (size_t i = 0; i < l->n_unreadable && i < UNREADABLE_PIDS_NAMED; i++) {
                char *grown;

                if (asprintf(&grown, "%s%s%d", pids ?: "", pids ? ", " : "", (int) l->unreadable[i].pid) < 0)
                        return -ENOMEM;
                free(pids);
                pids = grown;
        }
        if (asprintf(&why, "could not read the open files of %zu process(es) (pid %s%s: %s), which may hold it open",
                     l->n_unreadable, pids, l->n_unreadable > UNREADABLE_PIDS_NAMED ? ", ..." : "",
                     strerror(l->unreadable[0].error)) < 0)
                return -ENOMEM;
        return block_every_namespace(s, why);
}

/* One usage per process and device; the list holds a process's fds
 * together. */
static int report_fds(UsageScan *s, const ProcessFdList *l) {
        const NvmeBlockDevice *seen[16];
        size_t n_seen = 0;
        pid_t current = 0;

        for (size_t i = 0; i < l->n_fds; i++) {
                const ProcessFd *f = &l->fds[i];
                _cleanup_free_ char *link = NULL;
                const NvmeBlockDevice *d;
                bool dup = false;
                int r;

                if (f->pid != current) {
                        current = f->pid;
                        n_seen = 0;
                }
                if (f->name[0] && asprintf(&link, "/dev/%s", f->name) < 0)
                        return -ENOMEM;
                d = process_fd_match(s, link, f->has_rdev, f->rdev);
                for (size_t k = 0; d && k < n_seen; k++)
                        dup = dup || seen[k] == d;
                if (!d || dup)
                        continue;
                if (n_seen < ELEMENTSOF(seen))
                        seen[n_seen++] = d;
                if ((r = report(s, f->pid, d)) < 0)
                        return r;
        }
        return 0;
}

int process_users_read(UsageScan *s) {
        _cleanup_(process_fd_list_done) ProcessFdList l = {};
        _cleanup_free_ char *why = NULL;
        pid_t self = getpid();
        int r;

        r = fd_source ? fd_source(fd_source_userdata, &l) : process_fd_walk(&self, 1, &l);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                /* The reader's answer is all we know of other processes' open
                 * files: none, or a broken one, is "unknown", never "free". */
                if (asprintf(&why, "the open files of other processes could not be read (%s%s)",
                             fd_source ? "the daemon's privileged reader: " : "", strerror(-r)) < 0)
                        return -ENOMEM;
                return block_every_namespace(s, why);
        }
        if (l.list_error) {
                if (asprintf(&why, "could not list the processes in /proc: %s", strerror(l.list_error)) < 0)
                        return -ENOMEM;
                return block_every_namespace(s, why);
        }
        if ((r = report_fds(s, &l)) < 0)
                return r;
        return block_unreadable(s, &l);
}
