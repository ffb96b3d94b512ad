/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "usage/mount-fingerprint.h"
#include "util/macro.h"

/* FNV-1a, 64 bit: a change detector, not a security boundary. */
static uint64_t fnv1a(const char *s, size_t n) {
        uint64_t h = 0xcbf29ce484222325ULL;

        for (size_t i = 0; i < n; i++) {
                h ^= (unsigned char) s[i];
                h *= 0x100000001b3ULL;
        }
        return h;
}

/* The n-th space-separated field of a line (0-based), or NULL. */
static const char *field(const char *line, const char *end, unsigned n, size_t *ret_len) {
        const char *p = line;

        for (unsigned i = 0; p < end; i++) {
                const char *q = memchr(p, ' ', (size_t) (end - p));

                if (!q)
                        q = end;
                if (i == n) {
                        *ret_len = (size_t) (q - p);
                        return p;
                }
                p = q + 1;
        }
        return NULL;
}

/* The source: the field after " - " and the fstype. */
static const char *source_field(const char *line, const char *end, size_t *ret_len) {
        const char *sep = NULL;

        for (const char *p = line; p + 3 <= end; p++)
                if (p[0] == ' ' && p[1] == '-' && p[2] == ' ') {
                        sep = p + 3;
                        break;
                }
        return sep ? field(sep, end, 1, ret_len) : NULL;
}

/* The key of one mountinfo line, hashed; false when the line names no device. */
static bool line_key(const char *line, const char *end, uint64_t *ret) {
        size_t n = 0, sn = 0;
        const char *devno = field(line, end, 2, &n), *src;

        if (!devno || n < 3)
                return false;
        if (!(devno[0] == '0' && devno[1] == ':')) {
                *ret = fnv1a(devno, n);
                return true;
        }
        src = source_field(line, end, &sn);
        if (!src || sn < 6 || !strneq(src, "/dev/", 5))
                return false;
        *ret = fnv1a(src, sn) ^ 0x9e3779b97f4a7c15ULL; /* never equal to a devno's */
        return true;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return x < y ? -1 : x > y;
}

int mount_fingerprint_of_text(const char *text, size_t len, MountFingerprint *ret) {
        _cleanup_free_ uint64_t *keys = NULL;
        size_t n = 0, alloc = 0, lines = 0, distinct = 0;
        uint64_t h = 0xcbf29ce484222325ULL;
        const char *end = text + len;

        for (const char *line = text; line < end;) {
                const char *nl = memchr(line, '\n', (size_t) (end - line));
                const char *le = nl ? nl : end;
                uint64_t k;

                lines += le > line;
                if (line_key(line, le, &k)) {
                        if (n == alloc) {
                                uint64_t *g = reallocarray(keys, alloc * 2 + 64, sizeof(uint64_t));

                                if (!g)
                                        return -ENOMEM;
                                keys = g;
                                alloc = alloc * 2 + 64;
                        }
                        keys[n++] = k;
                }
                line = le + 1;
        }
        if (n > 0)
                qsort(keys, n, sizeof(uint64_t), cmp_u64);
        for (size_t i = 0; i < n; i++)
                if (i == 0 || keys[i] != keys[i - 1]) {
                        h = (h ^ keys[i]) * 0x100000001b3ULL;
                        distinct++;
                }
        *ret = (MountFingerprint) { .hash = h, .n_keys = distinct, .n_lines = lines };
        return 0;
}

int mount_fingerprint_read_fd(int fd, MountFingerprint *ret) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0, alloc = 0;

        /* From the start, sequentially: a seq_file re-walks the table for a
         * read at any other offset than where the last one stopped. */
        if (lseek(fd, 0, SEEK_SET) < 0)
                return -errno;
        for (;;) {
                ssize_t k;

                if (alloc - len < 65536) {
                        char *g = realloc(buf, alloc + 262144);

                        if (!g)
                                return -ENOMEM;
                        buf = g;
                        alloc += 262144;
                }
                k = read(fd, buf + len, alloc - len);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        break;
                len += (size_t) k;
        }
        return mount_fingerprint_of_text(buf ? buf : "", len, ret);
}
