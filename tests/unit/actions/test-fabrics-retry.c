/* SPDX-License-Identifier: Apache-2.0 */
/* The pure retry decision of a fabrics connection not back (the kernel's
 * own rule: every reconnect_delay until ctrl_loss_tmo, -1 forever), the
 * errno -> error kind mapping, and the request file's parser. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "actions/fabrics-request.h"
#include "nvme/fabrics-retry.h"
#include "nvme/fabrics-topology.h"

#define SEC 1000000ull
#define LOST 1700000000000000ull

Test(fabrics_retry, error_kind_from_errno) {
        cr_assert_eq(fabrics_error_kind_from_errno(0), FABRICS_ERROR_NONE);
        cr_assert_eq(fabrics_error_kind_from_errno(ECONNREFUSED), FABRICS_ERROR_REFUSED);
        cr_assert_eq(fabrics_error_kind_from_errno(-ECONNREFUSED), FABRICS_ERROR_REFUSED, "either sign");
        cr_assert_eq(fabrics_error_kind_from_errno(EAGAIN), FABRICS_ERROR_NO_ANSWER,
                     "accepted, no ICResp within the kernel's 10 s: not refused");
        cr_assert_eq(fabrics_error_kind_from_errno(ETIMEDOUT), FABRICS_ERROR_NO_ANSWER);
        cr_assert_eq(fabrics_error_kind_from_errno(EHOSTUNREACH), FABRICS_ERROR_NO_ANSWER);
        cr_assert_eq(fabrics_error_kind_from_errno(EKEYREJECTED), FABRICS_ERROR_AUTH);
        cr_assert_eq(fabrics_error_kind_from_errno(EACCES), FABRICS_ERROR_AUTH);
        cr_assert_eq(fabrics_error_kind_from_errno(EPERM), FABRICS_ERROR_AUTH);
        cr_assert_eq(fabrics_error_kind_from_errno(EALREADY), FABRICS_ERROR_EXISTS);
        cr_assert_eq(fabrics_error_kind_from_errno(EEXIST), FABRICS_ERROR_EXISTS);
        cr_assert_eq(fabrics_error_kind_from_errno(EINVAL), FABRICS_ERROR_INVALID);
        cr_assert_eq(fabrics_error_kind_from_errno(EIO), FABRICS_ERROR_OTHER);
}

Test(fabrics_retry, error_kind_names_round_trip) {
        for (int k = FABRICS_ERROR_REFUSED; k < _FABRICS_ERROR_KIND_MAX; k++)
                cr_assert_eq(fabrics_error_kind_from_string(fabrics_error_kind_to_string(k)), k);
        cr_assert_str_eq(fabrics_error_kind_to_string(FABRICS_ERROR_NO_ANSWER), "no-answer");
        cr_assert_null(fabrics_error_kind_to_string(FABRICS_ERROR_NONE));
        cr_assert_eq(fabrics_error_kind_from_string("timeout"), _FABRICS_ERROR_KIND_INVALID);
        cr_assert_eq(fabrics_error_kind_from_string(NULL), _FABRICS_ERROR_KIND_INVALID);
}

Test(fabrics_retry, next_try_is_last_try_plus_reconnect_delay) {
        FabricsRetryPlan p = fabrics_retry_plan(LOST + 3 * SEC, LOST, 10, 600);

        cr_assert_not(p.give_up);
        cr_assert_eq(p.next_try_usec, LOST + 13 * SEC);
        cr_assert_eq(p.give_up_at_usec, LOST + 600 * SEC, "from when it was lost, not from the last try");
}

Test(fabrics_retry, kernel_defaults_when_not_recorded) {
        FabricsRetryPlan p = fabrics_retry_plan(LOST, LOST, FABRICS_OPT_UNSET, FABRICS_OPT_UNSET);

        cr_assert_eq(p.next_try_usec, LOST + 10 * SEC);
        cr_assert_eq(p.give_up_at_usec, LOST + 600 * SEC);
        p = fabrics_retry_plan(LOST, LOST, 0, 600);
        cr_assert_eq(p.next_try_usec, LOST + SEC, "a delay below 1 s counts as 1 s");
}

Test(fabrics_retry, never_give_up_when_ctrl_loss_tmo_is_off) {
        FabricsRetryPlan p = fabrics_retry_plan(LOST + 100000 * SEC, LOST, 10, FABRICS_OPT_OFF);

        cr_assert_not(p.give_up);
        cr_assert_eq(p.give_up_at_usec, 0, "0: never");
        cr_assert_eq(p.next_try_usec, LOST + 100010 * SEC);
}

Test(fabrics_retry, give_up_once_ctrl_loss_tmo_has_passed) {
        FabricsRetryPlan p = fabrics_retry_plan(LOST + 59 * SEC, LOST, 20, 60);

        cr_assert_not(p.give_up);
        cr_assert_eq(p.next_try_usec, LOST + 60 * SEC, "the last try at the give-up time, not after it");
        p = fabrics_retry_plan(LOST + 60 * SEC, LOST, 20, 60);
        cr_assert(p.give_up);
        cr_assert_eq(p.next_try_usec, 0);
        cr_assert_eq(p.give_up_at_usec, LOST + 60 * SEC);
        p = fabrics_retry_plan(LOST, LOST, 10, 0);
        cr_assert(p.give_up, "ctrl_loss_tmo 0: the first failure is the last");
}

static void request_refused(const char *text, const char *error) {
        FabricsRequest r;
        char *e = NULL;

        cr_assert_eq(fabrics_request_parse(text, "/run/req", &r, &e), -EBADMSG, "%s", text);
        cr_assert_str_eq(e, error);
        free(e);
}

Test(fabrics_retry, request_file) {
        FabricsRequest r;
        char *e = NULL;

        cr_assert_eq(fabrics_request_parse("verb=capture\ntoken=18446744073709551615\n", "/run/req", &r, &e), 0);
        cr_assert_eq(r.verb, FABRICS_VERB_CAPTURE);
        cr_assert_eq(r.token, UINT64_MAX);
        cr_assert_eq(fabrics_request_parse("token=3\nverb=connect", "/run/req", &r, &e), 0);
        cr_assert_eq(r.verb, FABRICS_VERB_CONNECT);
        request_refused("", "/run/req:1: no verb= line");
        request_refused("verb=connect\n", "/run/req:2: no token= line");
        request_refused("verb=connect\ntoken=-1\n", "/run/req:2: token: not a decimal number: \"-1\"");
        request_refused("verb=connect\ntoken= 1\n", "/run/req:2: token: not a decimal number: \" 1\"");
        request_refused("verb=connect\ntoken=99999999999999999999\n",
                        "/run/req:2: token: not a decimal number: \"99999999999999999999\"");
        request_refused("verb=connect\nverb=capture\n", "/run/req:2: verb given twice");
        request_refused("token=5\nverb=forget\n", "/run/req:2: verb: not capture or connect: \"forget\"");
        request_refused("token=5\n\nverb=connect\n", "/run/req:2: not key=value: \"\"");
        request_refused("when=now\n", "/run/req:1: unknown key: \"when\"");
        cr_assert_eq(fabrics_request_parse("token=9\nverb=x\n", "/run/req", &r, &e), -EBADMSG);
        cr_assert_eq(r.token, 9, "the token when one parsed, for result.json");
        free(e);
}
