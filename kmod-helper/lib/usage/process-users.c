/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host-root.h"
#include "usage/process-users.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/parse-util.h"
#include "util/strv.h"

/* Pids we could not look into: reported once, with the first few named. */
#define UNREADABLE_PIDS_NAMED 8

typedef struct ProcessWalk {
        UsageScan *scan;
        size_t n_unreadable;
        char *unreadable_pids; /* "12, 34, ..." */
        int first_error;       /* positive errno of the first unreadable fd directory */
} ProcessWalk;

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

static int note_unreadable(ProcessWalk *w, const char *pid, int error) {
        char *grown;

        if (w->first_error == 0)
                w->first_error = error;
        if (w->n_unreadable++ >= UNREADABLE_PIDS_NAMED)
                return 0;
        if (asprintf(&grown, "%s%s%s", w->unreadable_pids ?: "", w->unreadable_pids ? ", " : "", pid) < 0)
                return -ENOMEM;
        free(w->unreadable_pids);
        w->unreadable_pids = grown;
        return 0;
}

static int report(UsageScan *s, const char *pid, const NvmeBlockDevice *d) {
        _cleanup_free_ char *path = NULL, *comm = NULL;
        int pid_value = 0, r;

        r = host_pathf(&path, "/proc/%s/comm", pid);
        if (r < 0)
                return r;
        if (read_one_line_file(path, &comm) < 0)
                comm = NULL; /* exited meanwhile: still worth naming by pid */
        (void) safe_atoi(pid, &pid_value);
        r = usage_collector_add(&s->collector, USAGE_OPEN_BY_PROCESS, d->name, comm ?: "?", NULL, pid_value);
        return r < 0 ? r : 0;
}

/* One fd: its link text, and on the real host the stat of what it opens
 * (in a fake root the links point at nothing meaningful). Only /dev nodes
 * are stat'ed: a stat of a file on a hung NFS or FUSE mount would block us,
 * and a block device fd always reads as a path under some /dev (the node
 * may have another name there, in a container's own /dev: hence st_rdev). */
static const NvmeBlockDevice *inspect_fd(const UsageScan *s, const char *fd_path, int *ret_denied) {
        _cleanup_free_ char *link = NULL;
        struct stat st;
        bool has_rdev = false;
        int r;

        r = read_link(fd_path, &link);
        if (r == -EACCES || r == -EPERM)
                *ret_denied = -r; /* listed but not readable: as unknown as an unreadable directory */
        if (r < 0)
                return NULL; /* ENOENT: closed while we looked */
        if (host_root_is_real() && strneq(link, "/dev/", 5) && stat(fd_path, &st) == 0 && S_ISBLK(st.st_mode))
                has_rdev = true;
        return process_fd_match(s, link, has_rdev, has_rdev ? st.st_rdev : 0);
}

static int walk_process(ProcessWalk *w, const char *pid) {
        _cleanup_strv_free_ char **fds = NULL;
        _cleanup_free_ char *dir = NULL;
        const NvmeBlockDevice *seen[16];
        size_t n_seen = 0;
        int r, denied = 0;

        r = host_pathf(&dir, "/proc/%s/fd", pid);
        if (r < 0)
                return r;
        r = read_dir_names(dir, &fds);
        if (r == -ENOENT || r == -ESRCH)
                return 0; /* exited while we walked */
        if (r < 0)
                return r == -ENOMEM ? r : note_unreadable(w, pid, -r);
        STRV_FOREACH(fd, fds) {
                _cleanup_free_ char *fd_path = NULL;
                const NvmeBlockDevice *d;
                bool dup = false;

                if (asprintf(&fd_path, "%s/%s", dir, *fd) < 0)
                        return -ENOMEM;
                d = inspect_fd(w->scan, fd_path, &denied);
                for (size_t i = 0; d && i < n_seen; i++)
                        dup = dup || seen[i] == d;
                if (!d || dup)
                        continue; /* one usage per process and device */
                if (n_seen < ELEMENTSOF(seen))
                        seen[n_seen++] = d;
                if ((r = report(w->scan, pid, d)) < 0)
                        return r;
        }
        return denied ? note_unreadable(w, pid, denied) : 0;
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

static int block_unreadable(ProcessWalk *w) {
        _cleanup_free_ char *why = NULL;

        if (w->n_unreadable == 0)
                return 0;
        if (asprintf(&why, "could not read the open files of %zu process(es) (pid %s%s: %s), which may hold it open",
                     w->n_unreadable, w->unreadable_pids, w->n_unreadable > UNREADABLE_PIDS_NAMED ? ", ..." : "",
                     strerror(w->first_error)) < 0)
                return -ENOMEM;
        return block_every_namespace(w->scan, why);
}

int process_users_read(UsageScan *s) {
        _cleanup_strv_free_ char **pids = NULL;
        _cleanup_free_ char *proc = NULL, *self = NULL;
        ProcessWalk w = { .scan = s };
        int r;

        if ((r = host_path("/proc", &proc)) < 0)
                return r;
        r = read_dir_names(proc, &pids);
        if (r < 0) {
                _cleanup_free_ char *why = NULL;

                if (r == -ENOMEM || asprintf(&why, "could not list the processes in /proc: %s", strerror(-r)) < 0)
                        return -ENOMEM;
                return block_every_namespace(s, why);
        }
        if (asprintf(&self, "%d", (int) getpid()) < 0)
                return -ENOMEM;
        r = 0;
        STRV_FOREACH(pid, pids)
                if (is_all_digits(*pid) && !streq(*pid, self) && (r = walk_process(&w, *pid)) < 0)
                        break;
        if (r >= 0)
                r = block_unreadable(&w);
        free(w.unreadable_pids);
        return r;
}
