/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "actions/module-file.h"
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

#define RESOLVE_TREE (RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS)

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

        fd = openat2_raw(root_fd, path && *path ? path : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK,
                         RESOLVE_TREE);
        if (fd < 0)
                return fd;
        *ret_fd = fd;
        return 0;
}

int module_file_open(int root_fd, const char *path, size_t max, int *ret_fd, size_t *ret_size) {
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        fd = openat2_raw(root_fd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, RESOLVE_TREE);
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
        _cleanup_free_ char *buf = malloc(size + 1);
        size_t n = 0;

        if (!buf)
                return -ENOMEM;
        while (n < size) {
                ssize_t k = pread(fd, buf + n, size - n, (off_t) n);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                n += (size_t) k;
        }
        buf[n] = '\0';
        *ret = TAKE_PTR(buf);
        *ret_size = n;
        return 0;
}
