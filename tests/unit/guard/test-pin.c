/* SPDX-License-Identifier: Apache-2.0 */
/* The pin (usage-pin.h), the controllers of a namespace (nvme-controllers.h)
 * and our own exclusive claims (claim-hold.h), on a fake sysfs. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fake-tree.h"
#include "host/host-root.h"
#include "nvme-fixtures.h"
#include "nvme/nvme-controllers.h"
#include "usage/claim-hold.h"
#include "usage/mount-fingerprint.h"
#include "usage/usage-collector.h"
#include "usage/usage-pin.h"
#include "util/retry.h"
#include "util/strv.h"

static void setup(void) {
        fake_tree_new();
        fixture_plain_namespace();
        fixture_multipath_head();
}

static void teardown(void) {
        fake_tree_remove();
}

TestSuite(pin, .init = setup, .fini = teardown);

Test(pin, transport_modules) {
        const char *m = NULL;

        cr_assert_str_eq(nvme_transport_module("pcie"), "nvme");
        cr_assert_str_eq(nvme_transport_module("tcp"), "nvme_tcp");
        cr_assert_str_eq(nvme_transport_module("rdma"), "nvme_rdma");
        cr_assert_null(nvme_transport_module("carrier-pigeon"));
        cr_assert_eq(nvme_controller_transport_module("nvme1", &m), 0);
        cr_assert_str_eq(m, "nvme");
        cr_assert_eq(nvme_controller_transport_module("nvme9", &m), -ENOENT);
}

Test(pin, controllers_of_plain_and_head) {
        _cleanup_strv_free_ char **plain = NULL, **head = NULL, **none = NULL;

        cr_assert_eq(nvme_namespace_controllers("nvme0n1", &plain), 0);
        cr_assert_eq(strv_length(plain), 1);
        cr_assert_str_eq(plain[0], "nvme0");
        cr_assert_eq(nvme_namespace_controllers("nvme1n1", &head), 0);
        cr_assert_eq(strv_length(head), 2, "a head is pinned through every controller of its subsystem");
        cr_assert_str_eq(head[0], "nvme1");
        cr_assert_str_eq(head[1], "nvme2");
        cr_assert_eq(nvme_namespace_controllers("nvme7n1", &none), -ENOENT);
}

/* A report as usage_check() leaves it, built by hand. */
static UsageReport *report_of(UsageKind kind, const char *device, const char *where, const char *what) {
        UsageReport *r = calloc(1, sizeof(UsageReport));
        UsageCollector c;

        cr_assert_not_null(r);
        cr_assert_eq(nvme_block_devices_scan(&r->devices), 0);
        cr_assert_eq(usage_collector_init(&c), 0);
        cr_assert_geq(usage_collector_add(&c, kind, device, where, what, 0), 0);
        r->usages = c.usages;
        r->n_usages = c.n_usages;
        r->notes = c.notes;
        return r;
}

Test(pin, reason_in_words_an_operator_acts_on) {
        UsageReport *r = report_of(USAGE_MOUNTED, "nvme1n1", "/data", "ext4");
        char *mods[] = { (char *) "nvme", NULL };
        _cleanup_free_ char *line = NULL, *swap = NULL;

        cr_assert_eq(usage_pin_reason(&r->usages[0], mods, &line), 0);
        cr_assert_str_eq(line, "nvme pinned: /dev/nvme1n1 mounted at /data (ext4)");
        r->usages[0].kind = USAGE_SWAP;
        cr_assert_eq(usage_pin_reason(&r->usages[0], mods, &swap), 0);
        cr_assert_str_eq(swap, "nvme pinned: nvme1n1 is in use as swap (/data)");
        usage_report_free(r);
}

Test(pin, holds_every_controller_of_a_head_and_lets_go) {
        UsageReport *r = report_of(USAGE_MOUNTED, "nvme1n1", "/data", "xfs");
        UsagePin *p = usage_pin_new();
        _cleanup_strv_free_ char **mods = NULL;

        cr_assert_not_null(p);
        fake_write("dev/nvme1", "");
        fake_write("dev/nvme2", "");
        cr_assert_eq(usage_pin_update(p, r), 0);
        cr_assert_eq(p->n_controllers, 2);
        cr_assert(p->controllers[0].fd >= 0 && p->controllers[1].fd >= 0);
        cr_assert(usage_pin_held(p));
        cr_assert_eq(strv_length(p->problems), 0, "%s", p->problems[0]);
        cr_assert_str_eq(p->reasons[0], "nvme pinned: /dev/nvme1n1 mounted at /data (xfs)");
        cr_assert_eq(usage_pin_modules(p, &mods), 0);
        cr_assert_eq(strv_length(mods), 1);

        /* The same usage again keeps the same descriptors (no reopen). */
        {
                int fd0 = p->controllers[0].fd;

                cr_assert_eq(usage_pin_update(p, r), 0);
                cr_assert_eq(p->controllers[0].fd, fd0);
        }
        /* Free again: nothing held. */
        cr_assert_eq(usage_pin_update(p, NULL), 0);
        cr_assert_not(usage_pin_held(p));
        cr_assert_eq(strv_length(p->reasons), 0);
        usage_pin_free(p);
        usage_report_free(r);
}

Test(pin, a_partition_pins_its_namespace_controller_and_problems_are_said) {
        UsageReport *r = report_of(USAGE_MOUNTED, "nvme0n1p1", "/srv", "xfs");
        UsagePin *p = usage_pin_new();

        /* no dev/nvme0: the open fails, the pin says so */
        cr_assert_eq(usage_pin_update(p, r), 0);
        cr_assert_eq(p->n_controllers, 1);
        cr_assert_str_eq(p->controllers[0].name, "nvme0");
        cr_assert_not(usage_pin_held(p));
        cr_assert_eq(strv_length(p->problems), 1);
        cr_assert_not_null(strstr(p->problems[0], "could not pin nvme0: opening /dev/nvme0 failed"), "%s",
                           p->problems[0]);
        fake_write("dev/nvme0", "");
        cr_assert_eq(usage_pin_update(p, r), 0, "tried again at the next update");
        cr_assert(usage_pin_held(p));
        cr_assert_eq(strv_length(p->problems), 0);
        usage_pin_free(p);
        usage_report_free(r);
}

Test(pin, claim_hold_covers_namespaces_and_partitions) {
        NvmeBlockDevices *d = NULL;
        ClaimHold *h = NULL;
        _cleanup_strv_free_ char **held = NULL;

        fake_write("dev/nvme0n1", "");
        fake_write("dev/nvme1n1", "");
        cr_assert_eq(nvme_block_devices_scan(&d), 0);
        cr_assert_eq(claim_hold_take(d, &h), 0);
        cr_assert_eq(h->n_claims, 2, "namespaces only: holding the whole disk covers its partitions");
        cr_assert(claim_hold_covers(h, "nvme0n1p1"));
        cr_assert_str_eq(h->claims[0].transport, "nvme", "a plain namespace's open pins its transport");
        cr_assert_null(h->claims[1].transport, "a head's open pins nvme_core only");
        cr_assert_eq(claim_hold_release_pinning(h, "nvme"), 1);
        cr_assert_not(claim_hold_covers(h, "nvme0n1p1"));
        cr_assert(claim_hold_covers(h, "nvme1n1"));
        cr_assert_eq(claim_hold_devices(h, &held), 0);
        cr_assert_eq(strv_length(held), 1);
        cr_assert_eq(claim_hold_release_pinning(h, "nvme_core"), 1);
        cr_assert_not(claim_hold_covers(h, "nvme1n1"));
        claim_hold_free(h);
        nvme_block_devices_free(d);
}

/* ---- the shared bounded retry -------------------------------------------- */

static int calls;

static int always_busy(void *userdata, unsigned attempt) {
        calls++;
        cr_assert_eq(attempt, (unsigned) calls);
        return *(int *) userdata;
}

Test(pin, retry_is_bounded_and_stops_on_anything_else) {
        RetryPolicy p = { .attempts = 4, .first_ms = 1, .max_ms = 2 };
        int answer = -EAGAIN;

        calls = 0;
        cr_assert_eq(retry_transient(&p, always_busy, &answer), -EAGAIN);
        cr_assert_eq(calls, 4);
        answer = -EPERM;
        calls = 0;
        cr_assert_eq(retry_transient(&p, always_busy, &answer), -EPERM);
        cr_assert_eq(calls, 1);
        answer = 3; /* a caller's stop value */
        calls = 0;
        cr_assert_eq(retry_transient(&p, always_busy, &answer), 3);
        cr_assert_eq(calls, 1);
}

/* ---- the watch's cheap filter -------------------------------------------- */

static MountFingerprint fp(const char *text) {
        MountFingerprint f;

        cr_assert_eq(mount_fingerprint_of_text(text, strlen(text), &f), 0);
        return f;
}

Test(pin, fingerprint_sees_devices_not_churn) {
        const char *base = "22 1 259:1 / / rw - ext4 /dev/nvme0n1p1 rw\n"
                           "23 22 0:21 / /proc rw - proc proc rw\n";
        MountFingerprint a = fp(base), b, c, d, e;
        char text[1024];

        cr_assert_eq(a.n_keys, 1);
        cr_assert_eq(a.n_lines, 2);
        /* a pod: overlay, tmpfs, a bind mount of a directory of the root disk */
        snprintf(text, sizeof(text), "%s%s", base,
                 "900 22 0:55 / /run/containers/x/merged rw - overlay overlay rw\n"
                 "901 22 0:56 / /var/lib/kubelet/pods/p/volumes/t rw - tmpfs tmpfs rw\n"
                 "902 22 259:1 /var/lib/data /var/lib/kubelet/pods/p/volumes/d rw - ext4 /dev/nvme0n1p1 rw\n");
        b = fp(text);
        cr_assert(mount_fingerprint_equal(&a, &b), "container churn changes nothing");
        /* a new device mounted: changes */
        snprintf(text, sizeof(text), "%s%s", base, "903 22 259:2 / /data rw - xfs /dev/nvme1n1 rw\n");
        c = fp(text);
        cr_assert_not(mount_fingerprint_equal(&a, &c));
        /* order does not matter */
        snprintf(text, sizeof(text), "%s%s", "903 22 259:2 / /data rw - xfs /dev/nvme1n1 rw\n", base);
        d = fp(text);
        cr_assert(mount_fingerprint_equal(&c, &d));
        /* btrfs: anonymous device number, told apart by its /dev source */
        snprintf(text, sizeof(text), "%s%s", base, "904 22 0:60 / /b rw - btrfs /dev/nvme1n1 rw\n");
        e = fp(text);
        cr_assert_not(mount_fingerprint_equal(&a, &e));
        cr_assert_eq(e.n_keys, 2);
}
