/* SPDX-License-Identifier: Apache-2.0 */
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "util/parse-util.h"

/* strtoull accepts leading blanks and a sign (and wraps "-1"): refuse both. */
static int parse_u64_prefix(const char *s, uint64_t *ret, const char **ret_end) {
        unsigned long long v;
        char *end;

        if (!s || !isdigit((unsigned char) s[0]))
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        *ret = v;
        *ret_end = end;
        return 0;
}

static int at_end(const char *end) {
        return end[0] == '\0' || (end[0] == '\n' && end[1] == '\0');
}

int safe_atou64(const char *s, uint64_t *ret) {
        const char *end;
        uint64_t v;
        int r;

        r = parse_u64_prefix(s, &v, &end);
        if (r < 0)
                return r;
        if (!at_end(end))
                return -EINVAL;
        *ret = v;
        return 0;
}

int parse_seconds(const char *s, uint64_t max, uint64_t *ret) {
        uint64_t v;

        if (safe_atou64(s, &v) < 0 || v == 0 || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

int safe_atou(const char *s, unsigned *ret) {
        uint64_t v;
        int r;

        r = safe_atou64(s, &v);
        if (r < 0)
                return r;
        if (v > UINT_MAX)
                return -ERANGE;
        *ret = (unsigned) v;
        return 0;
}

int safe_atoi(const char *s, int *ret) {
        bool negative = s && s[0] == '-';
        uint64_t v;
        int r;

        r = safe_atou64(negative ? s + 1 : s, &v);
        if (r < 0)
                return r;
        if (v > (uint64_t) INT_MAX + (negative ? 1 : 0))
                return -ERANGE;
        *ret = negative ? (int) -(int64_t) v : (int) v;
        return 0;
}

int parse_devno(const char *s, dev_t *ret) {
        const char *end;
        uint64_t major, minor;
        int r;

        r = parse_u64_prefix(s, &major, &end);
        if (r < 0)
                return r;
        if (end[0] != ':')
                return -EINVAL;
        r = parse_u64_prefix(end + 1, &minor, &end);
        if (r < 0)
                return r;
        if (!at_end(end))
                return -EINVAL;
        /* Linux dev_t: 12 bits of major, 20 of minor. */
        if (major > 0xfff || minor > 0xfffff)
                return -ERANGE;
        *ret = makedev((unsigned) major, (unsigned) minor);
        return 0;
}

int is_all_digits(const char *s) {
        if (!s || !*s)
                return 0;
        for (; *s; s++)
                if (!isdigit((unsigned char) *s))
                        return 0;
        return 1;
}
