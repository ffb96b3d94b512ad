/* SPDX-License-Identifier: Apache-2.0 */
/* The checked open of /dev/nvme-fabrics (see fabrics-device.h). */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "actions/fabrics-device.h"
#include "host/host-root.h"
#include "util/fileio.h"
#include "util/parse-util.h"
#include "util/string-util.h"
#include "util/strv.h"

/* The listing is one line of the kernel's option patterns: a few hundred
 * bytes on 6.12. */
#define OPTIONS_LISTING_MAX 4096

int fabrics_device_parse_dev(const char *text, dev_t *ret) {
        unsigned major_nr, minor_nr;
        size_t n;
        _cleanup_free_ char *maj = NULL;
        const char *colon;

        if (!text)
                return -EINVAL;
        colon = strchr(text, ':');
        if (!colon || colon == text)
                return -EINVAL;
        n = strspn(colon + 1, "0123456789");
        if (n == 0 || (colon[1 + n] != '\0' && !streq(colon + 1 + n, "\n")))
                return -EINVAL;
        if (strspn(text, "0123456789") != (size_t) (colon - text))
                return -EINVAL;
        maj = strndup(text, (size_t) (colon - text));
        if (!maj)
                return -ENOMEM;
        {
                _cleanup_free_ char *min = strndup(colon + 1, n);

                if (!min)
                        return -ENOMEM;
                if (safe_atou(maj, &major_nr) < 0 || safe_atou(min, &minor_nr) < 0)
                        return -EINVAL;
        }
        *ret = makedev(major_nr, minor_nr);
        return 0;
}

static const char *kind(mode_t mode) {
        switch (mode & S_IFMT) {
        case S_IFLNK:
                return "a symbolic link";
        case S_IFIFO:
                return "a FIFO";
        case S_IFREG:
                return "a regular file";
        case S_IFDIR:
                return "a directory";
        case S_IFSOCK:
                return "a socket";
        case S_IFBLK:
                return "a block device";
        case S_IFCHR:
                return "another character device";
        default:
                return "of an unknown type";
        }
}

int fabrics_device_verdict(mode_t mode, dev_t rdev, dev_t expected, const char **ret_what) {
        if (S_ISCHR(mode) && rdev == expected)
                return 0;
        if (ret_what)
                *ret_what = kind(mode);
        return -ENODEV;
}

static int fail(char **ret_error, int error, const char *fmt, ...) _printf_(3, 4);
static int fail(char **ret_error, int error, const char *fmt, ...) {
        va_list ap;

        if (!ret_error)
                return error;
        va_start(ap, fmt);
        *ret_error = strdup_vprintf(fmt, ap);
        va_end(ap);
        return *ret_error ? error : -ENOMEM;
}

static int expected_dev(dev_t *ret, char **ret_error) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        int r;

        if ((r = host_path(FABRICS_DEVICE_SYSFS_DEV, &path)) < 0)
                return r;
        r = read_one_line_file(path, &text);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return fail(ret_error, r == -ENOENT ? -ENOENT : -EBADMSG,
                            "%s: %s: the kernel's number of /dev/nvme-fabrics is unknown, nothing written", path,
                            strerror(-r));
        r = fabrics_device_parse_dev(text, ret);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return fail(ret_error, -EBADMSG, "%s: \"%.32s\" is not major:minor, nothing written", path, text);
        return 0;
}

int fabrics_device_open(int *ret_fd, char **ret_error) {
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int fd = -EBADF;
        const char *what = NULL;
        struct stat st;
        dev_t expected;
        int r;

        if (ret_error)
                *ret_error = NULL;
        if ((r = host_path(FABRICS_DEVICE_PATH, &path)) < 0)
                return r;
        if ((r = expected_dev(&expected, ret_error)) < 0)
                return r;
        fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        if (fd < 0 && errno == ELOOP) {
                /* O_NOFOLLOW refused a symlink: name it, never follow it */
                if (lstat(path, &st) < 0)
                        return fail(ret_error, -errno, "%s: %s", path, strerror(errno));
        } else if (fd < 0)
                return fail(ret_error, -errno, "%s: %s", path, strerror(errno));
        else if (fstat(fd, &st) < 0)
                return fail(ret_error, -errno, "%s: fstat: %s", path, strerror(errno));
        r = fabrics_device_verdict(st.st_mode, st.st_rdev, expected, &what);
        if (r < 0) {
                if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
                        return fail(ret_error, r, "%s is %s (%u:%u), not the kernel's nvme-fabrics device %u:%u: nothing written",
                                    path, what, major(st.st_rdev), minor(st.st_rdev), major(expected), minor(expected));
                return fail(ret_error, r, "%s is %s, not the kernel's nvme-fabrics device %u:%u: nothing written", path,
                            what, major(expected), minor(expected));
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int fabrics_supported_options_parse(const char *text, char ***ret) {
        _cleanup_strv_free_ char **names = strv_new_empty();
        const char *p = text;

        if (!names)
                return -ENOMEM;
        if (!text || strncmp(text, "instance=-1,cntlid=-1", 21) != 0)
                return -EINVAL;
        while (*p && *p != '\n') {
                size_t len = strcspn(p, ",\n"), name_len = strcspn(p, "=,\n");
                _cleanup_free_ char *name = strndup(p, name_len);

                if (!name)
                        return -ENOMEM;
                if (name_len == 0 || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != name_len)
                        return -EINVAL;
                if (!streq(name, "instance") && !streq(name, "cntlid") && !strv_contains(names, name) &&
                    strv_push(&names, TAKE_PTR(name)) < 0)
                        return -ENOMEM;
                p += len;
                if (*p == ',')
                        p++;
        }
        if (strspn(p, "\n") != strlen(p) || !names[0])
                return -EINVAL;
        *ret = TAKE_PTR(names);
        return 0;
}

int fabrics_supported_options_read(char ***ret, char **ret_error) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *text = NULL, *path = NULL;
        ssize_t n;
        int r;

        if ((r = fabrics_device_open(&fd, ret_error)) < 0)
                return r;
        if (!(text = malloc(OPTIONS_LISTING_MAX)))
                return -ENOMEM;
        do
                n = read(fd, text, OPTIONS_LISTING_MAX - 1);
        while (n < 0 && errno == EINTR);
        if ((r = host_path(FABRICS_DEVICE_PATH, &path)) < 0)
                return r;
        if (n < 0)
                return fail(ret_error, -errno, "%s: reading the supported options: %s", path, strerror(errno));
        text[n] = '\0';
        r = fabrics_supported_options_parse(text, ret);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return fail(ret_error, -EBADMSG, "%s: not a list of options: \"%.64s\"", path, text);
        return 0;
}
