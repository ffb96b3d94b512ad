/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sandbox/sandbox-bundle.h"
#include "util/macro.h"

static int write_all(int fd, const void *data, size_t n) {
        const uint8_t *p = data;

        while (n > 0) {
                ssize_t k = write(fd, p, n);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        return -EIO;
                p += k;
                n -= (size_t) k;
        }
        return 0;
}

int sandbox_bundle_new(const BundlePart *parts, size_t n, int *ret_fd) {
        _cleanup_close_ int fd = -EBADF;
        int r;

        fd = memfd_create("swapguard-parser-input", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd < 0)
                return -errno;
        for (size_t i = 0; i < n; i++) {
                uint64_t v = parts[i].size;
                uint8_t len[8];

                for (size_t b = 0; b < sizeof(len); b++)
                        len[b] = (uint8_t) (v >> (8 * b));
                if ((r = write_all(fd, len, sizeof(len))) < 0 ||
                    (parts[i].size > 0 && (r = write_all(fd, parts[i].data, parts[i].size)) < 0))
                        return r;
        }
        if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0)
                return -errno;
        if (lseek(fd, 0, SEEK_SET) < 0)
                return -errno;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

static int read_exact(int fd, void *buf, size_t n) {
        uint8_t *p = buf;

        while (n > 0) {
                ssize_t k = read(fd, p, n);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        return -EBADMSG;
                p += k;
                n -= (size_t) k;
        }
        return 0;
}

int sandbox_bundle_next(int fd, size_t max, char **ret, size_t *ret_size) {
        _cleanup_free_ char *buf = NULL;
        uint8_t len[8];
        uint64_t v = 0;
        int r;

        r = read_exact(fd, len, sizeof(len));
        if (r < 0)
                return r;
        for (size_t b = 0; b < sizeof(len); b++)
                v |= (uint64_t) len[b] << (8 * b);
        if (v > max)
                return -EFBIG;
        buf = malloc((size_t) v + 1);
        if (!buf)
                return -ENOMEM;
        r = read_exact(fd, buf, (size_t) v);
        if (r < 0)
                return r;
        buf[v] = '\0';
        *ret = TAKE_PTR(buf);
        *ret_size = (size_t) v;
        return 0;
}
