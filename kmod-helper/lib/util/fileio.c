/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

int read_full_file(const char *path, char **ret, size_t *ret_size) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        size_t size = 0, alloc = 4096;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
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

int read_one_line_file(const char *path, char **ret) {
        _cleanup_free_ char *buf = NULL;
        int r;

        r = read_full_file(path, &buf, NULL);
        if (r < 0)
                return r;
        buf[strcspn(buf, "\n")] = '\0';
        *ret = TAKE_PTR(buf);
        return 0;
}

static void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}

int read_dir_names(const char *path, char ***ret) {
        _cleanup_(closedirp) DIR *d = NULL;
        _cleanup_strv_free_ char **names = NULL;
        size_t n = 0, alloc = 0;
        struct dirent *de;

        d = opendir(path);
        if (!d)
                return -errno;
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
        size_t size = 256;

        for (;;) {
                _cleanup_free_ char *buf = malloc(size);
                ssize_t n;

                if (!buf)
                        return -ENOMEM;
                n = readlink(path, buf, size);
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
