/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

int read_full_file(const char *path, char **ret, size_t *ret_size) {
        return read_full_file_at(AT_FDCWD, path, ret, ret_size);
}

int read_full_file_at(int dirfd, const char *path, char **ret, size_t *ret_size) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        size_t size = 0, alloc = 4096;

        fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        buf = malloc(alloc);
        if (!buf)
                return -ENOMEM;
        /* sysfs and procfs files report size 0 or 4096: read until EOF, never trust st_size. */
        for (;;) {
                ssize_t n;

                if (alloc - size < 2) {
                        char *grown;

                        if (alloc >= READ_FULL_FILE_MAX)
                                return -EFBIG;
                        alloc *= 2;
                        grown = realloc(buf, alloc);
                        if (!grown)
                                return -ENOMEM;
                        buf = grown;
                }
                n = read(fd, buf + size, alloc - size - 1);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                size += (size_t) n;
        }
        buf[size] = '\0';
        *ret = TAKE_PTR(buf);
        if (ret_size)
                *ret_size = size;
        return 0;
}

int read_fd_at_most(int fd, size_t size, char **ret, size_t *ret_size) {
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
        if (ret_size)
                *ret_size = n;
        return 0;
}

int read_regular_fd(int fd, size_t max, char **ret, size_t *ret_size) {
        struct stat st;

        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADMSG;
        if ((uint64_t) st.st_size > max)
                return -EFBIG;
        return read_fd_at_most(fd, (size_t) st.st_size, ret, ret_size);
}

int read_regular_file(const char *path, size_t max, char **ret, size_t *ret_size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);

        if (fd < 0)
                return -errno;
        return read_regular_fd(fd, max, ret, ret_size);
}

int read_one_line_file(const char *path, char **ret) {
        return read_one_line_file_at(AT_FDCWD, path, ret);
}

int read_one_line_file_at(int dirfd, const char *path, char **ret) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        ssize_t n;
        char *nl;
        int r;

        /* Fast path for sysfs attributes: one read holds the whole line, and
         * a newline in it means no second read (for EOF) is needed. */
        fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        buf = malloc(4096);
        if (!buf)
                return -ENOMEM;
        do
                n = read(fd, buf, 4095);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        buf[n] = '\0';
        nl = memchr(buf, '\n', (size_t) n);
        if (!nl && n == 4095) { /* a longer first line: take the slow, whole-file way */
                free(TAKE_PTR(buf));
                r = read_full_file_at(dirfd, path, &buf, NULL);
                if (r < 0)
                        return r;
                nl = strchr(buf, '\n');
        }
        if (nl)
                *nl = '\0';
        *ret = TAKE_PTR(buf);
        return 0;
}

int read_dir_names(const char *path, char ***ret) {
        return read_dir_names_at(AT_FDCWD, path, ret);
}

int read_dir_names_at(int dirfd, const char *path, char ***ret) {
        _cleanup_(closedirp) DIR *d = NULL;
        _cleanup_strv_free_ char **names = NULL;
        size_t n = 0, alloc = 0;
        struct dirent *de;
        int fd;

        fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        d = fdopendir(fd);
        if (!d) {
                int saved = errno;

                close(fd);
                return -saved;
        }
        /* Grow geometrically ourselves: strv_push is O(n) per call, and
         * /proc or /sys/class/block can hold many thousands of entries. */
        names = strv_new_empty();
        if (!names)
                return -ENOMEM;
        alloc = 1;
        for (errno = 0; (de = readdir(d)); errno = 0) {
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (n + 2 > alloc) {
                        char **grown;

                        alloc = alloc * 2 + 8;
                        grown = realloc(names, alloc * sizeof(char *));
                        if (!grown)
                                return -ENOMEM;
                        names = grown;
                }
                names[n] = strdup(de->d_name);
                if (!names[n])
                        return -ENOMEM;
                names[++n] = NULL;
        }
        if (errno != 0)
                return -errno;
        strv_sort(names);
        *ret = TAKE_PTR(names);
        return 0;
}

int path_exists(const char *path) {
        struct stat st;

        if (lstat(path, &st) == 0)
                return 1;
        return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
}

int read_link(const char *path, char **ret) {
        return read_link_at(AT_FDCWD, path, ret);
}

int read_link_at(int dirfd, const char *path, char **ret) {
        size_t size = 256;

        for (;;) {
                _cleanup_free_ char *buf = malloc(size);
                ssize_t n;

                if (!buf)
                        return -ENOMEM;
                n = readlinkat(dirfd, path, buf, size);
                if (n < 0)
                        return -errno;
                if ((size_t) n < size) {
                        buf[n] = '\0';
                        *ret = TAKE_PTR(buf);
                        return 0;
                }
                if (size >= 65536)
                        return -ENAMETOOLONG;
                size *= 2;
        }
}

const char *path_basename(const char *path) {
        const char *slash = strrchr(path, '/');

        return slash ? slash + 1 : path;
}

static int write_all(int fd, const char *p, size_t n) {
        while (n > 0) {
                ssize_t k = write(fd, p, n);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                p += k;
                n -= (size_t) k;
        }
        return 0;
}

/* The directory that holds path, fsync'd so that the rename is durable
 * (best effort: what matters, the file's content, is already on disk). */
static void fsync_parent(const char *path) {
        _cleanup_free_ char *dir = strdup(path);
        char *slash = dir ? strrchr(dir, '/') : NULL;
        _cleanup_close_ int fd = -EBADF;

        if (!slash)
                return;
        *(slash == dir ? slash + 1 : slash) = '\0';
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0)
                (void) fsync(fd);
}

static int write_atomic(const char *path, const char *text, mode_t mode, bool exclusive) {
        _cleanup_free_ char *tmp = NULL;
        _cleanup_close_ int fd = -EBADF;
        size_t n = strlen(text);
        int r;

        if (asprintf(&tmp, "%s.tmp", path) < 0)
                return -ENOMEM;
        if (exclusive && unlink(tmp) < 0 && errno != ENOENT)
                return -errno;
        fd = open(tmp, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (exclusive ? O_EXCL : O_TRUNC), mode);
        if (fd < 0)
                return -errno;
        /* the mode as asked, whatever the umask (the unit's UMask=0077) */
        r = fchmod(fd, mode) < 0 ? -errno : 0;
        if (r >= 0)
                r = write_all(fd, text, n);
        if (r >= 0 && (n == 0 || text[n - 1] != '\n'))
                r = write_all(fd, "\n", 1);
        if (r >= 0 && fsync(fd) < 0)
                r = -errno;
        if (r >= 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0) {
                (void) unlink(tmp);
                return r;
        }
        fsync_parent(path);
        return 0;
}

int write_file_atomic(const char *path, const char *text, mode_t mode) {
        return write_atomic(path, text, mode, false);
}

int write_file_atomic_exclusive(const char *path, const char *text, mode_t mode) {
        return write_atomic(path, text, mode, true);
}
