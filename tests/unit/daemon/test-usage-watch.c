/* SPDX-License-Identifier: Apache-2.0 */
/* The usage watch's pacing (usage_watch_next_summary): a lone change waits
 * the short window, churn is read no more often than its cost allows, and
 * the pin's one-second bound wins over the share. */
#include <criterion/criterion.h>

#include "watch/usage-watch.h"

#define MS 1000ULL
#define NOW (1000000ULL * MS)

Test(usage_watch, lone_change_waits_the_short_window) {
        cr_assert_eq(usage_watch_next_summary(NOW, 0, 0), NOW + USAGE_WATCH_COALESCE_USEC, "never read yet");
        /* the last read (12 ms) a minute ago: nothing to pace */
        cr_assert_eq(usage_watch_next_summary(NOW, NOW - 60000 * MS, 12 * MS), NOW + USAGE_WATCH_COALESCE_USEC);
}

Test(usage_watch, churn_is_paced_by_the_cost_of_a_read) {
        uint64_t last = NOW - 100 * MS, cost = 12 * MS;
        uint64_t at = usage_watch_next_summary(NOW, last, cost);

        /* 12 ms at 1.5 %: 800 ms after the last read began */
        cr_assert_eq(at, last + 800 * MS, "at %llu ms after now", (unsigned long long) ((at - NOW) / MS));
        cr_assert_gt(at, NOW + USAGE_WATCH_COALESCE_USEC, "churn is read less often than a lone change");
        /* the share holds: one read of `cost` per (at - last) */
        cr_assert_leq(cost * 100.0 / (double) (at - last), USAGE_WATCH_CPU_SHARE_PERCENT + 0.001);
}

Test(usage_watch, the_pin_bound_wins_over_the_share) {
        uint64_t cost = 40 * MS; /* a table so large that 1.5 % would mean 2.7 s */
        uint64_t at = usage_watch_next_summary(NOW, NOW, cost);

        cr_assert_leq(at + cost, NOW + USAGE_WATCH_MAX_WINDOW_USEC, "first event to summary done within 1 s");
        cr_assert_geq(at, NOW + USAGE_WATCH_COALESCE_USEC);
        /* a read costing more than the bound allows: the short window still */
        cr_assert_eq(usage_watch_next_summary(NOW, NOW, 600 * MS), NOW + USAGE_WATCH_COALESCE_USEC);
}
