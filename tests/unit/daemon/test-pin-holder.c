/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's side of the pin (pin-holder.c) against scripted NodeOps
 * pin answers: what is held, when it changed, and that a check that cannot
 * be made keeps the pin as it is (never fail open). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "node/node-ops.h"
#include "node/pin-holder.h"
#include "swap/pin-report.h"
#include "util/strv.h"

static const char *scripted_reason; /* NULL: nothing in use */
static int scripted_error;
static unsigned calls;

static int scripted_refresh(void *userdata, NodePin **ret) {
        NodePin *p;

        calls++;
        if (scripted_error)
                return -scripted_error;
        p = calloc(1, sizeof(NodePin));
        cr_assert_not_null(p);
        p->modules = strv_new_empty();
        p->reasons = strv_new_empty();
        p->problems = strv_new_empty();
        p->devices = strv_new_empty();
        if (scripted_reason) {
                cr_assert_eq(strv_extend(&p->modules, "nvme"), 0);
                cr_assert_eq(strv_extend(&p->reasons, scripted_reason), 0);
                cr_assert_eq(strv_extend(&p->devices, "nvme1n1"), 0);
        }
        *ret = p;
        return 0;
}

static const NodeOps ops = { .pin_refresh = scripted_refresh };
static const NodeOps no_pin_ops = {};

Test(pin_holder, takes_keeps_and_lets_go) {
        PinHolder *h = pin_holder_new(&ops);
        const char *r1 = "nvme pinned: /dev/nvme1n1 mounted at /data (ext4)";

        scripted_error = 0;
        scripted_reason = NULL;
        cr_assert_eq(pin_holder_refresh(h), 0, "nothing in use: no change");
        cr_assert_not(pin_holder_held(h));

        scripted_reason = r1;
        cr_assert_eq(pin_holder_refresh(h), 1);
        cr_assert(pin_holder_held(h));
        cr_assert_str_eq(pin_holder_summary(h), r1);
        cr_assert_str_eq(pin_holder_reasons(h)[0], r1);
        cr_assert_eq(pin_holder_refresh(h), 0, "the same use again: no change");

        /* A check that fails keeps the pin (letting go would fail open). */
        scripted_error = EIO;
        cr_assert_lt(pin_holder_refresh(h), 0);
        cr_assert(pin_holder_held(h));
        cr_assert_str_eq(pin_holder_summary(h), r1);

        scripted_error = 0;
        scripted_reason = NULL;
        cr_assert_eq(pin_holder_refresh(h), 1, "free: released");
        cr_assert_not(pin_holder_held(h));
        cr_assert_null(pin_holder_summary(h));
        cr_assert_null(pin_holder_reasons(h));
        pin_holder_free(h);
}

Test(pin_holder, ops_without_a_pin_are_a_no_op) {
        PinHolder *h = pin_holder_new(&no_pin_ops);

        cr_assert_eq(pin_holder_refresh(h), 0);
        cr_assert_not(pin_holder_held(h));
        pin_holder_driver_container(h, "abc", "pod", true); /* says nothing, crashes not */
        pin_holder_free(h);
        cr_assert_eq(pin_holder_refresh(NULL), 0);
}
