/* SPDX-License-Identifier: Apache-2.0 */
/* The usage watch's pacing (usage_watch_next_summary): a lone change waits
 * the short window, churn is read no more often than its cost allows, and
 * the pin's one-second bound wins over the share. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <unistd.h>

#include "host/host-root.h"

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

/* A plain open holding the pin ends without any event: while the caller
 * says one holds, the watch pokes itself (the handler runs with nothing
 * else happening); once told none does, no timer runs. The watch runs on a
 * fake root whose /proc files cannot be polled, so no other source fires. */
static unsigned handled;

static void on_change(UsageWatch *w, void *userdata) {
        handled++;
}

static void run_for(sd_event *e, uint64_t usec) {
        uint64_t start, now;

        cr_assert_geq(sd_event_now(e, CLOCK_MONOTONIC, &start), 0);
        do {
                cr_assert_geq(sd_event_run(e, 100 * MS), 0);
                cr_assert_geq(sd_event_now(e, CLOCK_MONOTONIC, &now), 0);
        } while (now - start < usec);
}

Test(usage_watch, an_open_in_the_pin_is_looked_at_again_without_an_event) {
        char dir[] = "/tmp/sg-usage-watch-XXXXXX";
        sd_event *e = NULL;
        UsageWatch *w = NULL;

        cr_assert_not_null(mkdtemp(dir));
        cr_assert_eq(host_root_set(dir), 0);
        cr_assert_eq(sd_event_new(&e), 0);
        cr_assert_eq(usage_watch_new(e, NULL, on_change, NULL, &w, NULL), 0);

        usage_watch_recheck_opens(w, true);
        run_for(e, USAGE_WATCH_OPEN_RECHECK_FIRST_USEC + 500 * MS);
        cr_assert_eq(handled, 1, "one look after the first back-off step, no event needed (%u)", handled);

        usage_watch_recheck_opens(w, false);
        run_for(e, 2 * USAGE_WATCH_OPEN_RECHECK_FIRST_USEC + 500 * MS);
        cr_assert_eq(handled, 1, "no open in the pin: no look without an event (%u)", handled);

        usage_watch_free(w);
        sd_event_unref(e);
        host_root_set(NULL);
        rmdir(dir);
}
