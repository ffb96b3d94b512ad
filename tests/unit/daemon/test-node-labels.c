/* SPDX-License-Identifier: Apache-2.0 */
/* The node labels' file as the daemon writes it (publish/node-labels.c):
 * its exact text, GDS readiness, the hooks' value, observe never ready;
 * and the copier's check of it (report/node-labels.c): what it takes back,
 * and each kind of line it refuses. tests/daemon/daemon-labels-fakeroot.sh
 * reads the same files with a reader written from NFD's grammar. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "publish/node-labels.h"

/* 2026-12-05T14:00:00Z */
#define T0 1796479200000000ULL
#define SEC 1000000ULL

static char *text_of(const NodeLabelsFacts *f) {
        char *t = NULL;

        cr_assert_eq(node_labels_to_text(f, &t), 0);
        return t;
}

Test(node_labels, swapped_ready_text) {
        NodeLabelsFacts f = {
                .state = SWAP_STATE_SWAPPED,
                .mode = SWAP_MODE_ENFORCE,
                .gds_ready = node_labels_gds_ready(SWAP_STATE_SWAPPED, SWAP_MODE_ENFORCE, "same", false),
                .gds_hooks = "v2",
                .expiry_usec = T0 + 600 * SEC,
        };
        char *t = text_of(&f);

        cr_assert(f.gds_ready);
        cr_assert_str_eq(t, "# nvme-swapguard: this node's NVMe stack swap, for Node Feature Discovery.\n"
                            "# Rewritten on every change and every 180s; nvme-swapguard-labels.service publishes it.\n"
                            "# +expiry-time=2026-12-05T14:10:00Z\n"
                            "nvme-swapguard.state=swapped\n"
                            "nvme-swapguard.gds-ready=true\n"
                            "nvme-swapguard.gds-hooks=v2\n"
                            "nvme-swapguard.mode=enforce\n");
        free(t);
}

Test(node_labels, gds_ready_needs_everything) {
        cr_assert(node_labels_gds_ready(SWAP_STATE_SWAPPED, SWAP_MODE_ENFORCE, "same", false));
        cr_assert_not(node_labels_gds_ready(SWAP_STATE_SWAPPED, SWAP_MODE_ENFORCE, "same", true), "a namespace missing");
        cr_assert_not(node_labels_gds_ready(SWAP_STATE_SWAPPED, SWAP_MODE_ENFORCE, "different", false));
        cr_assert_not(node_labels_gds_ready(SWAP_STATE_SWAPPED, SWAP_MODE_ENFORCE, "no-hooks", false));
        cr_assert_not(node_labels_gds_ready(SWAP_STATE_SWAPPED, SWAP_MODE_ENFORCE, "unknown", false));
        cr_assert_not(node_labels_gds_ready(SWAP_STATE_SWAPPED, SWAP_MODE_ENFORCE, NULL, false));
        cr_assert_not(node_labels_gds_ready(SWAP_STATE_RESTORED, SWAP_MODE_ENFORCE, "same", false));
        cr_assert_not(node_labels_gds_ready(SWAP_STATE_IDLE, SWAP_MODE_ENFORCE, "same", false));
        /* observe never says ready, whatever the record holds */
        cr_assert_not(node_labels_gds_ready(SWAP_STATE_SWAPPED, SWAP_MODE_OBSERVE, "same", false));
        cr_assert_not(node_labels_gds_ready(SWAP_STATE_WOULD_SWAP, SWAP_MODE_OBSERVE, "same", false));
}

Test(node_labels, hooks_value) {
        cr_assert_str_eq(node_labels_hooks_value(SWAP_STATE_SWAPPED, "v1,v2"), "v1-v2");
        cr_assert_str_eq(node_labels_hooks_value(SWAP_STATE_SWAPPED, "v1"), "v1");
        cr_assert_str_eq(node_labels_hooks_value(SWAP_STATE_SWAPPED, "none"), "none");
        cr_assert_str_eq(node_labels_hooks_value(SWAP_STATE_SWAPPED, NULL), "unknown");
        cr_assert_str_eq(node_labels_hooks_value(SWAP_STATE_SWAPPED, "v3;rm -rf"), "unknown");
        /* the record's generations are the last swap's: the in-tree stack has none */
        cr_assert_str_eq(node_labels_hooks_value(SWAP_STATE_RESTORED, "v2"), "none");
}

Test(node_labels, observe_text_says_would) {
        NodeLabelsFacts f = { .state = SWAP_STATE_WOULD_SWAP, .mode = SWAP_MODE_OBSERVE, .expiry_usec = T0 };
        char *t = text_of(&f);

        cr_assert(strstr(t, "\nnvme-swapguard.state=would-swap\n"));
        cr_assert(strstr(t, "\nnvme-swapguard.gds-ready=false\n"));
        cr_assert(strstr(t, "\nnvme-swapguard.mode=observe\n"));
        free(t);
}

Test(node_labels, stopped_has_no_label) {
        NodeLabelsFacts f = { .state = SWAP_STATE_SWAPPED, .gds_ready = true, .stopped = true, .expiry_usec = T0 };
        char *t = text_of(&f);

        cr_assert(strstr(t, "\n# +expiry-time=2026-12-05T14:00:00Z\n"));
        cr_assert_null(strstr(t, "nvme-swapguard.state"));
        cr_assert_null(strstr(t, "\nnvme-swapguard."));
        free(t);
}

/* Every state's name is a value the copier takes back. */
Test(node_labels, every_state_round_trips) {
        for (SwapState s = 0; s < _SWAP_STATE_MAX; s++) {
                NodeLabelsFacts f = { .state = s, .mode = SWAP_MODE_ENFORCE, .expiry_usec = T0 + 600 * SEC,
                                      .gds_hooks = "v1" };
                NodeLabelsFile back;
                const char *why = NULL;
                unsigned line = 0;
                char *t = text_of(&f);

                cr_assert_eq(node_labels_check(t, strlen(t), T0, &back, &line, &why), 0, "%s: line %u: %s",
                             swap_state_to_string(s), line, why ?: "");
                cr_assert_eq(back.n, 4);
                cr_assert_str_eq(back.labels[0].name, NODE_LABEL_STATE);
                cr_assert_str_eq(back.labels[0].value, swap_state_to_string(s));
                cr_assert_eq(back.expiry_usec, T0 + 600 * SEC);
                free(t);
        }
}

Test(node_labels, time_format_and_parse) {
        char buf[32];
        uint64_t t;

        cr_assert_eq(node_labels_format_time(T0, buf, sizeof(buf)), 0);
        cr_assert_str_eq(buf, "2026-12-05T14:00:00Z");
        cr_assert_eq(node_labels_parse_time("2026-12-05T14:00:00Z", &t), 0);
        cr_assert_eq(t, T0);
        cr_assert_eq(node_labels_parse_time("2026-12-05T15:30:00+01:30", &t), 0);
        cr_assert_eq(t, T0);
        cr_assert_eq(node_labels_parse_time("2026-12-05T14:00:00.123456789Z", &t), 0);
        cr_assert_eq(t, T0);
        cr_assert_eq(node_labels_parse_time("2026-12-05 14:00:00Z", &t), -EINVAL);
        cr_assert_eq(node_labels_parse_time("2026-12-05T14:00:00", &t), -EINVAL, "no zone");
        cr_assert_eq(node_labels_parse_time("2026-02-31T14:00:00Z", &t), -EINVAL);
        cr_assert_eq(node_labels_parse_time("2026-12-05T14:00:00Zjunk", &t), -EINVAL);
        cr_assert_eq(node_labels_parse_time("tomorrow", &t), -EINVAL);
}

Test(node_labels, label_syntax) {
        char v64[65];

        memset(v64, 'a', 64);
        v64[64] = '\0';
        cr_assert(node_label_value_valid(""));
        cr_assert(node_label_value_valid("would-swap"));
        cr_assert(node_label_value_valid(v64 + 1), "63 characters");
        cr_assert_not(node_label_value_valid(v64), "64 characters");
        cr_assert_not(node_label_value_valid("-x"));
        cr_assert_not(node_label_value_valid("x-"));
        cr_assert_not(node_label_value_valid("a b"));
        cr_assert_not(node_label_value_valid("v1,v2"));
        cr_assert_not(node_label_name_valid(""));
}

static int check(const char *text, unsigned *line, const char **why) {
        NodeLabelsFile f;

        *line = 0;
        *why = NULL;
        return node_labels_check(text, strlen(text), T0, &f, line, why);
}

#define GOOD_EXPIRY "# +expiry-time=2026-12-05T14:10:00Z\n"

/* Each kind of line the copier refuses, with the line it names. */
Test(node_labels, check_refuses) {
        static const struct {
                const char *text;
                unsigned line;
        } bad[] = {
                { "nvme-swapguard.state=swapped\n", 1 },                                      /* no expiry before */
                { "# nothing\n", 0 },                                                         /* no expiry at all */
                { GOOD_EXPIRY "feature.node.kubernetes.io/nvme-swapguard.state=swapped\n", 2 }, /* a prefix */
                { GOOD_EXPIRY "nvidia.com/gpu.present=true\n", 2 },                           /* not ours */
                { GOOD_EXPIRY "nvme-swapguard.gds-ready=yes\n", 2 },                          /* not a value of it */
                { GOOD_EXPIRY "nvme-swapguard.state=Swapped!\n", 2 },                         /* label syntax */
                { GOOD_EXPIRY "nvme-swapguard.state=/dev/nvme0n1\n", 2 },                     /* a device path */
                { GOOD_EXPIRY "nvme-swapguard.state\n", 2 },                                  /* no value */
                { GOOD_EXPIRY "nvme-swapguard.mode=enforce\nnvme-swapguard.mode=observe\n", 3 }, /* twice */
                { GOOD_EXPIRY "# +no-label\nnvme-swapguard.mode=enforce\n", 2 },              /* other directive */
                { GOOD_EXPIRY GOOD_EXPIRY, 2 },                                               /* two expiries */
                { "# +expiry-time=2026-12-05T14:16:00Z\n", 1 },                               /* too far ahead */
                { "# +expiry-time=2027-01-01T00:00:00Z\n", 1 },
                { "# +expiry-time=soon\n", 1 },                                               /* not RFC 3339 */
                { "# +expiry-time=2026-12-05 14:10:00\n", 1 },
                { GOOD_EXPIRY "nvme-swapguard.mode=enforce\n# +expiry-time=2026-12-05T14:05:00Z\n", 3 },
        };
        const char *why;
        unsigned line;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                cr_assert_eq(check(bad[i].text, &line, &why), -EBADMSG, "accepted: %s", bad[i].text);
                cr_assert_eq(line, bad[i].line, "%s: line %u, expected %u (%s)", bad[i].text, line, bad[i].line, why);
                cr_assert_not_null(why);
        }
        /* A NUL byte; a file far larger than ours. */
        {
                NodeLabelsFile f;
                char big[NODE_LABELS_FILE_MAX + 2];

                cr_assert_eq(node_labels_check(GOOD_EXPIRY "\0x", strlen(GOOD_EXPIRY) + 2, T0, &f, &line, &why), -EBADMSG);
                memset(big, '#', sizeof(big));
                cr_assert_eq(node_labels_check(big, sizeof(big), T0, &f, &line, &why), -EBADMSG);
        }
}

Test(node_labels, check_takes_and_republishes) {
        const char *text = "# a comment\n\n" GOOD_EXPIRY "  nvme-swapguard.state=blocked  \r\nnvme-swapguard.gds-ready=false\n";
        NodeLabelsFile f;
        const char *why = NULL;
        unsigned line = 0;
        char *out = NULL;

        cr_assert_eq(node_labels_check(text, strlen(text), T0, &f, &line, &why), 0, "line %u: %s", line, why ?: "");
        cr_assert_eq(f.n, 2);
        cr_assert_eq(node_labels_file_to_text(&f, T0, &out), 0);
        cr_assert(strstr(out, "\n# +expiry-time=2026-12-05T14:10:00Z\nnvme-swapguard.state=blocked\n"
                              "nvme-swapguard.gds-ready=false\n"), "%s", out);
        cr_assert_null(strstr(out, "a comment"), "the daemon's comments are not copied");
        free(out);
        /* expired (a stopped daemon's file): the expiry alone, no label */
        cr_assert_eq(node_labels_file_to_text(&f, T0 + 601 * SEC, &out), 0);
        cr_assert_null(strstr(out, "nvme-swapguard.state"));
        cr_assert(strstr(out, "# +expiry-time=2026-12-05T14:10:00Z\n"));
        free(out);
}
