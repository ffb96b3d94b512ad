/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host/host-root.h"
#include "usage/process-fds.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/parse-util.h"
#include "util/strv.h"

static const char *digits(const char *p) {
        const char *s = p;

        while (*p >= '0' && *p <= '9')
                p++;
        return p > s ? p : NULL;
}

bool process_fd_name_valid(const char *name) {
        const char *p;

        if (!name || strnlen(name, PROCESS_FD_NAME_MAX) >= PROCESS_FD_NAME_MAX || !strneq(name, "nvme", 4))
                return false;
        if (!(p = digits(name + 4)))
                return false;
        if (*p == 'c' && !(p = digits(p + 1)))
                return false;
        if (*p != 'n' || !(p = digits(p + 1)))
                return false;
        if (*p == 'p' && !(p = digits(p + 1)))
                return false;
        return *p == '\0';
}

int process_fd_list_add(ProcessFdList *l, const ProcessFd *f) {
        ProcessFd *n;

        if (l->n_fds >= PROCESS_FDS_MAX)
                return -E2BIG;
        n = realloc(l->fds, (l->n_fds + 1) * sizeof(*n));
        if (!n)
                return -ENOMEM;
        l->fds = n;
        n[l->n_fds++] = *f;
        return 0;
}

int process_fd_list_add_unreadable(ProcessFdList *l, pid_t pid, int error) {
        ProcessUnreadable *n;

        if (l->n_unreadable >= PROCESS_UNREADABLE_MAX)
                return -E2BIG;
        n = realloc(l->unreadable, (l->n_unreadable + 1) * sizeof(*n));
        if (!n)
                return -ENOMEM;
        l->unreadable = n;
        n[l->n_unreadable++] = (ProcessUnreadable) { .pid = pid, .error = error };
        return 0;
}

void process_fd_list_done(ProcessFdList *l) {
        free(l->fds);
        free(l->unreadable);
        *l = (ProcessFdList) {};
}

/* One fd: its link text, and on the real host the stat of what it opens.
 * Only /dev nodes are stat'ed (a block device fd always reads as a path
 * under some /dev; in a container's own /dev it may have another name:
 * hence st_rdev; the name only when the link is /dev/<one component>). 1 when it is worth a record, 0 when not, -EACCES/-EPERM
 * when listed but not readable. */
static int inspect_fd(const char *fd_path, ProcessFd *f) {
        _cleanup_free_ char *link = NULL;
        struct stat st;
        int r;

        r = read_link(fd_path, &link);
        if (r == -EACCES || r == -EPERM)
                return r;
        if (r < 0 || !strneq(link, "/dev/", 5))
                return 0; /* ENOENT: closed while we looked; or no /dev node */
        if (host_root_is_real() && stat(fd_path, &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev != 0) {
                f->has_rdev = true;
                f->rdev = st.st_rdev;
        }
        if (!strchr(link + 5, '/') && process_fd_name_valid(link + 5))
                strcpy(f->name, link + 5);
        return f->has_rdev || f->name[0];
}

static int walk_process(ProcessFdList *l, const char *pid_text, pid_t pid) {
        _cleanup_strv_free_ char **fds = NULL;
        _cleanup_free_ char *dir = NULL;
        int r, denied = 0;

        r = host_pathf(&dir, "/proc/%s/fd", pid_text);
        if (r < 0)
                return r;
        r = read_dir_names(dir, &fds);
        if (r == -ENOENT || r == -ESRCH)
                return 0; /* exited while we walked */
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return process_fd_list_add_unreadable(l, pid, -r);
        STRV_FOREACH(fd, fds) {
                _cleanup_free_ char *fd_path = NULL;
                ProcessFd f = { .pid = pid };

                if (safe_atoi(*fd, &f.fd) < 0 || f.fd < 0)
                        continue;
                if (asprintf(&fd_path, "%s/%s", dir, *fd) < 0)
                        return -ENOMEM;
                r = inspect_fd(fd_path, &f);
                if (r < 0)
                        denied = -r; /* listed but not readable: as unknown as an unreadable directory */
                else if (r > 0 && (r = process_fd_list_add(l, &f)) < 0)
                        return r;
        }
        return denied ? process_fd_list_add_unreadable(l, pid, denied) : 0;
}

int process_fd_walk(const pid_t *skip, size_t n_skip, ProcessFdList *ret) {
        _cleanup_strv_free_ char **pids = NULL;
        _cleanup_free_ char *proc = NULL;
        ProcessFdList l = {};
        int r;

        if ((r = host_path("/proc", &proc)) < 0)
                return r;
        r = read_dir_names(proc, &pids);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                *ret = (ProcessFdList) { .list_error = -r };
                return 0;
        }
        STRV_FOREACH(p, pids) {
                int pid;
                bool skipped = false;

                if (!is_all_digits(*p) || safe_atoi(*p, &pid) < 0 || pid <= 0 || pid > PROCESS_PID_MAX)
                        continue;
                for (size_t i = 0; i < n_skip; i++)
                        skipped = skipped || skip[i] == pid;
                if (skipped)
                        continue;
                if ((r = walk_process(&l, *p, pid)) < 0) {
                        process_fd_list_done(&l);
                        return r;
                }
        }
        *ret = l;
        return 0;
}
