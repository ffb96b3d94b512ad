/* SPDX-License-Identifier: Apache-2.0 */
/* The metrics file's text (publish/metrics.c): names, state-sets, values,
 * label escaping, and the counters read back at a restart. promtool checks
 * the same text in tests/monitoring; here its exact lines. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "publish/metrics.h"

static const MetricsModule modules[] = {
        { .name = "nvme_core", .origin = "nvidia", .build = "container", .srcversion = "0A1B2C3D4E5F" },
        { .name = "nvme", .origin = "nvidia", .build = "container", .srcversion = "F00D" },
        { .name = "nvme_auth", .origin = "in-tree", .build = "shared-from-host", .srcversion = NULL },
};

static MetricsFacts swapped(void) {
        return (MetricsFacts) {
                .version = "0.1.0",
                .start_usec = 1764686400123456ULL,
                .state = SWAP_STATE_SWAPPED,
                .state_since_usec = 1764686461000000ULL,
                .mode = SWAP_MODE_ENFORCE,
                .live_build = "nvidia",
                .modules = modules,
                .n_modules = 3,
                .gds_hooks = 1,
                .gds_match = "same",
                .driverless = 0,
                .fabrics = { [METRICS_FABRICS_BACK] = 2 },
                .counters = { .swaps = 3, .restores = 1, .refusals = 4, .last_swap_usec = 1764686461000000ULL,
                              .last_swap_duration_usec = 95250000ULL, .last_swap_driverless_usec = 1500000ULL },
        };
}

static char *text_of(const MetricsFacts *f) {
        char *t = NULL;

        cr_assert_eq(metrics_to_text(f, &t), 0);
        cr_assert_not_null(t);
        return t;
}

static void has(const char *text, const char *line) {
        char *want = NULL;

        cr_assert(asprintf(&want, "\n%s\n", line) > 0);
        cr_expect(strstr(text, want) != NULL, "no line \"%s\" in:\n%s", line, text);
        free(want);
}

static void lacks(const char *text, const char *part) {
        cr_expect(strstr(text, part) == NULL, "\"%s\" in:\n%s", part, text);
}

Test(metrics, swapped_node) {
        MetricsFacts f = swapped();
        char *t = text_of(&f);

        cr_expect(strncmp(t, "# HELP nvme_swapguard_build_info ", 33) == 0, "%s", t);
        has(t, "nvme_swapguard_build_info{version=\"0.1.0\"} 1");
        has(t, "nvme_swapguard_start_timestamp_seconds 1764686400.123456");
        has(t, "# TYPE nvme_swapguard_state gauge");
        has(t, "nvme_swapguard_state{state=\"swapped\"} 1");
        has(t, "nvme_swapguard_state{state=\"idle\"} 0");
        has(t, "nvme_swapguard_state{state=\"blocked\"} 0");
        has(t, "nvme_swapguard_state_since_timestamp_seconds 1764686461.000000");
        has(t, "nvme_swapguard_mode{mode=\"enforce\"} 1");
        has(t, "nvme_swapguard_mode{mode=\"observe\"} 0");
        has(t, "nvme_swapguard_live_build{build=\"nvidia\"} 1");
        has(t, "nvme_swapguard_live_build{build=\"in-tree\"} 0");
        has(t, "nvme_swapguard_module_info{module=\"nvme\",origin=\"nvidia\",build=\"container\",srcversion=\"F00D\"} 1");
        has(t, "nvme_swapguard_module_info{module=\"nvme_auth\",origin=\"in-tree\",build=\"shared-from-host\",srcversion=\"\"} 1");
        has(t, "nvme_swapguard_gds_hooks_present 1");
        has(t, "nvme_swapguard_gds_hooks_match{match=\"same\"} 1");
        has(t, "nvme_swapguard_nvme_driverless 0");
        has(t, "nvme_swapguard_blockers{kind=\"mount\"} 0");
        has(t, "nvme_swapguard_fabrics_connections{state=\"back\"} 2");
        has(t, "nvme_swapguard_fabrics_connections{state=\"lost\"} 0");
        has(t, "# TYPE nvme_swapguard_swaps_total counter");
        has(t, "nvme_swapguard_swaps_total 3");
        has(t, "nvme_swapguard_restores_total 1");
        has(t, "nvme_swapguard_refusals_total 4");
        has(t, "nvme_swapguard_last_swap_duration_seconds 95.250000");
        has(t, "nvme_swapguard_last_swap_driverless_seconds 1.500000");
        cr_expect(t[strlen(t) - 1] == '\n');
        free(t);
}

/* One series per state, exactly one of them 1. */
Test(metrics, state_set_has_every_state_once) {
        MetricsFacts f = swapped();
        char *t = text_of(&f);
        int ones = 0, all = 0;

        for (char *p = t; (p = strstr(p, "\nnvme_swapguard_state{")); p++) {
                all++;
                ones += strstr(p, "} 1\n") == strchr(p, '}');
        }
        cr_expect_eq(all, _SWAP_STATE_MAX);
        cr_expect_eq(ones, 1);
        free(t);
}

Test(metrics, unknowns_are_left_out) {
        MetricsFacts f = { .state = SWAP_STATE_IDLE, .gds_hooks = -1, .driverless = -1 };
        char *t = text_of(&f);

        has(t, "nvme_swapguard_build_info{version=\"unknown\"} 1");
        has(t, "nvme_swapguard_live_build{build=\"unknown\"} 1");
        has(t, "nvme_swapguard_gds_hooks_match{match=\"unknown\"} 1");
        lacks(t, "nvme_swapguard_gds_hooks_present");
        lacks(t, "nvme_swapguard_nvme_driverless");
        lacks(t, "nvme_swapguard_state_since_timestamp_seconds");
        lacks(t, "nvme_swapguard_last_swap");
        lacks(t, "nvme_swapguard_module_info{");
        free(t);
}

Test(metrics, blockers_by_kind) {
        MetricsFacts f = swapped();
        char *t;

        f.state = SWAP_STATE_BLOCKED;
        f.blockers[metrics_blocker_kind("mounted", false)] = 2;
        f.blockers[metrics_blocker_kind("mounted", true)] = 1;
        f.blockers[metrics_blocker_kind("open", false)] = 1;
        f.blockers[metrics_blocker_kind("unchecked", false)] = 1;
        t = text_of(&f);
        has(t, "nvme_swapguard_blockers{kind=\"mount\"} 2");
        has(t, "nvme_swapguard_blockers{kind=\"other-namespace-mount\"} 1");
        has(t, "nvme_swapguard_blockers{kind=\"open\"} 1");
        has(t, "nvme_swapguard_blockers{kind=\"other\"} 1");
        has(t, "nvme_swapguard_blockers{kind=\"swap\"} 0");
        free(t);
}

Test(metrics, label_values_escaped) {
        MetricsModule odd = { .name = "nv\"me", .origin = "in-tree", .build = "a\\b", .srcversion = "x\ny" };
        MetricsFacts f = swapped();
        char *t;

        f.modules = &odd;
        f.n_modules = 1;
        t = text_of(&f);
        has(t, "nvme_swapguard_module_info{module=\"nv\\\"me\",origin=\"in-tree\",build=\"a\\\\b\",srcversion=\"x\\ny\"} 1");
        free(t);
}

Test(metrics, fabrics_buckets) {
        cr_expect_eq(metrics_fabrics_bucket(NODE_FABRICS_LIVE), METRICS_FABRICS_RECORDED);
        cr_expect_eq(metrics_fabrics_bucket(NODE_FABRICS_PENDING), METRICS_FABRICS_PENDING);
        cr_expect_eq(metrics_fabrics_bucket(NODE_FABRICS_FAILED), METRICS_FABRICS_PENDING);
        cr_expect_eq(metrics_fabrics_bucket(NODE_FABRICS_NAMESPACES_MISSING), METRICS_FABRICS_PENDING);
        cr_expect_eq(metrics_fabrics_bucket(NODE_FABRICS_RECONNECTED), METRICS_FABRICS_BACK);
        cr_expect_eq(metrics_fabrics_bucket(NODE_FABRICS_ALREADY_LIVE), METRICS_FABRICS_BACK);
        cr_expect_eq(metrics_fabrics_bucket(NODE_FABRICS_LOST), METRICS_FABRICS_LOST);
        cr_expect_lt(metrics_fabrics_bucket(_GUARD_FABRICS_OUTCOME_MAX), 0);
        for (int o = 0; o < _GUARD_FABRICS_OUTCOME_MAX; o++)
                cr_expect_not_null(metrics_fabrics_bucket_to_string(metrics_fabrics_bucket(o)),
                                   "outcome %s has no bucket", node_fabrics_outcome_to_string(o));
}

/* What is written is what a restart reads back. */
Test(metrics, counters_round_trip) {
        MetricsFacts f = swapped();
        MetricsCounters c;
        char *t = text_of(&f);

        cr_assert_eq(metrics_counters_parse(t, &c, NULL), 0);
        cr_expect_eq(c.swaps, 3);
        cr_expect_eq(c.restores, 1);
        cr_expect_eq(c.refusals, 4);
        cr_expect_eq(c.last_swap_usec, 1764686461000000ULL);
        cr_expect_eq(c.last_swap_duration_usec, 95250000ULL);
        cr_expect_eq(c.last_swap_driverless_usec, 1500000ULL);
        free(t);
}

Test(metrics, bad_counter_named) {
        MetricsCounters c = { .swaps = 7 };
        const char *field = NULL;

        cr_expect_eq(metrics_counters_parse("nvme_swapguard_swaps_total 2\nnvme_swapguard_restores_total -1\n",
                                            &c, &field), -EBADMSG);
        cr_expect_str_eq(field, "nvme_swapguard_restores_total");
        cr_expect_eq(c.swaps, 7, "written on failure");
        cr_expect_eq(metrics_counters_parse("nvme_swapguard_swaps_total 99999999999999999999999\n", &c, &field),
                     -EBADMSG);
        /* Other lines, and a file of someone else's, are no counters of ours. */
        cr_expect_eq(metrics_counters_parse("# HELP x\nnvme_swapguard_swaps_total_x 5\nfoo 1\n", &c, NULL), 0);
        cr_expect_eq(c.swaps, 0);
}

/* Restoring or restored: why, so that an asked-for restore does not read as a
 * failed swap; no such series in the other states. */
Test(metrics, restore_reason_only_while_restoring) {
        MetricsFacts f = swapped();
        char *t = text_of(&f);

        cr_expect(!strstr(t, "restore_reason"), "%s", t);
        free(t);
        f.state = SWAP_STATE_RESTORED;
        f.restore_reason = "pod-ended";
        t = text_of(&f);
        has(t, "# TYPE nvme_swapguard_restore_reason gauge");
        has(t, "nvme_swapguard_restore_reason{reason=\"pod-ended\"} 1");
        has(t, "nvme_swapguard_restore_reason{reason=\"abandoned\"} 0");
        has(t, "nvme_swapguard_restore_reason{reason=\"unknown\"} 0");
        free(t);
}
