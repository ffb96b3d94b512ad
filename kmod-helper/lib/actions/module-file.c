/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "actions/module-file.h"
#include "util/fileio.h"
#include "util/macro.h"

/* glibc 2.34 (RHEL 9) and 2.36 (Debian 12) have no openat2() wrapper; the
 * system call is in Linux 5.6, so in RHEL 9's 5.14. */
static int openat2_raw(int dirfd, const char *path, uint64_t flags, uint64_t resolve) {
        struct open_how how = { .flags = flags, .resolve = resolve };
        long r = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

        if (r < 0)
                return -errno;
        return (int) r;
}

#define WALK_MAX_FDS 64
#define WALK_MAX_LINKS 40

/* The same resolution in user space, for where openat2() is not allowed:
 * systemd's RestrictSUIDSGID= (which DynamicUser= implies, and which our unit
 * sets) makes openat2() fail with ENOSYS, because its flags are behind a
 * pointer seccomp cannot inspect. Walks one component at a time with
 * O_PATH|O_NOFOLLOW, keeping the directories walked on a stack: ".." pops
 * (never past the root), a symlink's text is resolved against the root when
 * absolute, against the current directory otherwise, at most 40 of them. The
 * last component is opened with O_NOFOLLOW: a symlink swapped in meanwhile
 * fails with ELOOP instead of being followed. */
int module_open_in_root_walk(int root_fd, const char *path, int flags) {
        int stack[WALK_MAX_FDS], n = 0, links = 0, r = -EINVAL;
        char *rest = NULL;

        rest = strdup(path);
        if (!rest)
                return -ENOMEM;
        stack[n++] = root_fd;
        for (;;) {
                char *p = rest + strspn(rest, "/"), *slash, comp[256], target[4096], *nrest;
                size_t len = strcspn(p, "/");
                bool last;
                struct stat st;
                ssize_t k;
                int fd;

                if (len == 0) { /* the path named a directory: open it */
                        r = openat(stack[n - 1], ".", flags | O_NOFOLLOW);
                        r = r < 0 ? -errno : r;
                        break;
                }
                if (len >= sizeof(comp)) {
                        r = -ENAMETOOLONG;
                        break;
                }
                memcpy(comp, p, len);
                comp[len] = '\0';
                slash = p + len;
                last = slash[strspn(slash, "/")] == '\0';
                memmove(rest, slash, strlen(slash) + 1);
                if (streq(comp, "."))
                        continue;
                if (streq(comp, "..")) {
                        if (n > 1)
                                close(stack[--n]);
                        if (last) {
                                r = openat(stack[n - 1], ".", flags | O_NOFOLLOW);
                                r = r < 0 ? -errno : r;
                                break;
                        }
                        continue;
                }
                fd = openat(stack[n - 1], comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0 || fstat(fd, &st) < 0) {
                        r = -errno;
                        if (fd >= 0)
                                close(fd);
                        break;
                }
                if (S_ISLNK(st.st_mode)) {
                        k = readlinkat(fd, "", target, sizeof(target) - 1);
                        close(fd);
                        if (k <= 0 || ++links > WALK_MAX_LINKS) {
                                r = k <= 0 ? -EINVAL : -ELOOP;
                                break;
                        }
                        target[k] = '\0';
                        if (target[0] == '/')
                                while (n > 1)
                                        close(stack[--n]);
                        if (asprintf(&nrest, "%s/%s", target, rest) < 0) {
                                r = -ENOMEM;
                                break;
                        }
                        free(rest);
                        rest = nrest;
                        continue;
                }
                if (last) {
                        close(fd);
                        r = openat(stack[n - 1], comp, flags | O_NOFOLLOW);
                        r = r < 0 ? -errno : r;
                        break;
                }
                if (!S_ISDIR(st.st_mode) || n >= WALK_MAX_FDS) {
                        close(fd);
                        r = S_ISDIR(st.st_mode) ? -ELOOP : -ENOTDIR;
                        break;
                }
                stack[n++] = fd;
        }
        while (n > 1)
                close(stack[--n]);
        free(rest);
        return r;
}

/* openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS), or the walk above where
 * the sandbox answers ENOSYS. */
static int open_in_root(int root_fd, const char *path, int flags) {
        int r = openat2_raw(root_fd, path, (uint64_t) flags, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);

        if (r == -ENOSYS)
                r = module_open_in_root_walk(root_fd, path, flags);
        return r;
}

bool module_relpath_valid(const char *relpath) {
        const char *p = relpath;

        if (!p || !*p || *p == '/')
                return false;
        while (*p) {
                size_t n = strcspn(p, "/");

                if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
                        return false;
                p += n;
                if (*p == '/')
                        p++;
                if (*p == '\0' && p[-1] == '/')
                        return false;
        }
        return true;
}

int module_dir_open(int root_fd, const char *path, int *ret_fd) {
        int fd;

        fd = open_in_root(root_fd, path && *path ? path : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
                return fd;
        *ret_fd = fd;
        return 0;
}

int module_file_open(int root_fd, const char *path, size_t max, int *ret_fd, size_t *ret_size) {
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        fd = open_in_root(root_fd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        if ((uint64_t) st.st_size > max)
                return -EFBIG;
        *ret_size = (size_t) st.st_size;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int module_file_read(int fd, size_t size, char **ret, size_t *ret_size) {
        return read_fd_at_most(fd, size, ret, ret_size);
}
