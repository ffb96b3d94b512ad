/* SPDX-License-Identifier: Apache-2.0 */
#include <criterion/criterion.h>
#include <errno.h>

#include "container/container-time.h"

/* 2026-12-02T14:32:10Z */
#define T0 1796221930ULL

Test(container_time, rfc3339nano_as_crio_writes_it) {
        uint64_t u;

        cr_assert_eq(rfc3339_parse_usec("2026-12-02T14:32:10.123456789Z", &u), 0);
        cr_assert_eq(u, T0 * 1000000ULL + 123456ULL);
        cr_assert_eq(rfc3339_parse_usec("2026-12-02T14:32:10Z", &u), 0, "no fraction when it is zero");
        cr_assert_eq(u, T0 * 1000000ULL);
        cr_assert_eq(rfc3339_parse_usec("2026-12-02T14:32:10.5Z", &u), 0, "trailing zeros dropped");
        cr_assert_eq(u, T0 * 1000000ULL + 500000ULL);
        cr_assert_eq(rfc3339_parse_usec("2026-12-02T16:32:10.5+02:00", &u), 0, "local time with an offset");
        cr_assert_eq(u, T0 * 1000000ULL + 500000ULL);
        cr_assert_eq(rfc3339_parse_usec("2026-12-02T09:02:10-05:30", &u), 0);
        cr_assert_eq(u, T0 * 1000000ULL);
}

Test(container_time, malformed) {
        static const char *const bad[] = {
                "", "2026-12-02", "2026-12-02T14:32:10", "2026-12-02T14:32:10.Z", "2026-13-02T14:32:10Z",
                "2026-12-02T25:32:10Z", "2026-12-02T14:32:10Zjunk", "2026-12-02T14:32:10+0200", "yesterday",
                "1969-12-31T23:59:59Z",
        };
        uint64_t u = 42;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                cr_expect_eq(rfc3339_parse_usec(bad[i], &u), -EINVAL, "accepted \"%s\"", bad[i]);
        cr_assert_eq(u, 42, "not written on failure");
        cr_assert_eq(rfc3339_parse_usec(NULL, &u), -EINVAL);
}

Test(container_time, ready_file_freshness) {
        uint64_t created = T0 * 1000000ULL;

        cr_assert_eq(ready_file_freshness(created + 600000000ULL, created), READY_FRESH, "made after the compile");
        cr_assert_eq(ready_file_freshness(created, created), READY_FRESH);
        cr_assert_eq(ready_file_freshness(created - 1, created), READY_STALE, "left by the earlier instance");
        cr_assert_eq(ready_file_freshness(created - 1, 0), READY_UNKNOWN);
}

#include <stdio.h>
#include <time.h>
#include <unistd.h>

Test(container_time, file_made_usec_is_now_for_a_new_file) {
        char p[] = "/tmp/sg-ready-XXXXXX";
        int fd = mkstemp(p);
        uint64_t made, now = (uint64_t) time(NULL) * 1000000ULL;

        cr_assert_geq(fd, 0);
        close(fd);
        cr_assert_eq(file_made_usec(p, &made), 0);
        cr_assert(made + 5000000ULL >= now && made <= now + 5000000ULL, "made %llu, now %llu",
                  (unsigned long long) made, (unsigned long long) now);
        unlink(p);
        cr_assert_eq(file_made_usec(p, &made), -ENOENT);
}
