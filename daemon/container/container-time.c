/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "container/container-time.h"

/* n decimal digits at *p, advancing it. */
static int digits(const char **p, int n, int *ret) {
        int v = 0;

        for (int i = 0; i < n; i++) {
                if ((*p)[i] < '0' || (*p)[i] > '9')
                        return -EINVAL;
                v = v * 10 + ((*p)[i] - '0');
        }
        *p += n;
        *ret = v;
        return 0;
}

static int expect(const char **p, const char *set) {
        if (!**p || !strchr(set, **p))
                return -EINVAL;
        (*p)++;
        return 0;
}

/* ".123456789": microseconds, the rest truncated. */
static int fraction(const char **p, uint64_t *usec) {
        uint64_t scale = 100000;

        *usec = 0;
        if (**p != '.')
                return 0;
        (*p)++;
        if (**p < '0' || **p > '9')
                return -EINVAL;
        for (; **p >= '0' && **p <= '9'; (*p)++, scale /= 10)
                *usec += (uint64_t) (**p - '0') * scale;
        return 0;
}

static int zone(const char **p, long *offset_sec) {
        int hh, mm, sign;

        if (**p == 'Z' || **p == 'z') {
                (*p)++;
                *offset_sec = 0;
                return 0;
        }
        if (**p != '+' && **p != '-')
                return -EINVAL;
        sign = **p == '-' ? -1 : 1;
        (*p)++;
        if (digits(p, 2, &hh) < 0 || expect(p, ":") < 0 || digits(p, 2, &mm) < 0 || hh > 23 || mm > 59)
                return -EINVAL;
        *offset_sec = sign * (hh * 3600L + mm * 60L);
        return 0;
}

int rfc3339_parse_usec(const char *s, uint64_t *ret) {
        struct tm tm = {};
        const char *p = s;
        uint64_t usec;
        long offset;
        time_t t;

        if (!s)
                return -EINVAL;
        if (digits(&p, 4, &tm.tm_year) < 0 || expect(&p, "-") < 0 || digits(&p, 2, &tm.tm_mon) < 0 ||
            expect(&p, "-") < 0 || digits(&p, 2, &tm.tm_mday) < 0 || expect(&p, "Tt ") < 0 ||
            digits(&p, 2, &tm.tm_hour) < 0 || expect(&p, ":") < 0 || digits(&p, 2, &tm.tm_min) < 0 ||
            expect(&p, ":") < 0 || digits(&p, 2, &tm.tm_sec) < 0 || fraction(&p, &usec) < 0 ||
            zone(&p, &offset) < 0 || *p)
                return -EINVAL;
        if (tm.tm_year < 1970 || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
            tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
                return -EINVAL;
        tm.tm_year -= 1900;
        tm.tm_mon -= 1;
        t = timegm(&tm);
        if (t == (time_t) -1 || t - offset < 0)
                return -EINVAL;
        *ret = (uint64_t) (t - offset) * 1000000ULL + usec;
        return 0;
}

ReadyFreshness ready_file_freshness(uint64_t file_usec, uint64_t created_usec) {
        if (created_usec == 0)
                return READY_UNKNOWN;
        /* Created is taken before the runtime even creates the process;
         * anything the container made is later. No tolerance: an earlier
         * instance's file is older by at least its whole run. */
        return file_usec >= created_usec ? READY_FRESH : READY_STALE;
}

int file_made_usec(const char *path, uint64_t *ret) {
        struct statx sx;
        const struct statx_timestamp *t;

        if (statx(AT_FDCWD, path, AT_STATX_SYNC_AS_STAT, STATX_BTIME | STATX_MTIME, &sx) < 0) {
                struct stat st;

                /* statx(2) refused (a seccomp filter's EPERM, ENOSYS), not the
                 * file gone: stat(2)'s mtime still tells when it was made (an
                 * error here makes the caller count a ready file as fresh). */
                if (errno == ENOENT || stat(path, &st) < 0)
                        return -errno;
                *ret = (uint64_t) st.st_mtim.tv_sec * 1000000ULL + (uint64_t) st.st_mtim.tv_nsec / 1000U;
                return 0;
        }
        t = (sx.stx_mask & STATX_BTIME) ? &sx.stx_btime : &sx.stx_mtime;
        *ret = (uint64_t) t->tv_sec * 1000000ULL + t->tv_nsec / 1000U;
        return 0;
}
