/* SPDX-License-Identifier: Apache-2.0 */
/* The pure parts of the daemon's side of nvme-swapguard-fabrics.service:
 * result.json parsed (errors name the file and the field) and the choice of
 * the next connect (no clock read: now is passed in). */

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "watch/fabrics-result.h"

#define PATH "/run/nvme-swapguard-fabrics/result.json"

static FabricsResult *parse_ok(const char *text) {
        FabricsResult *r = NULL;
        char *error = NULL;

        cr_assert_eq(fabrics_result_parse(PATH, text, &r, &error), 0, "%s", error ?: "");
        cr_assert_null(error);
        return r;
}

static void parse_bad(const char *text, const char *want) {
        FabricsResult *r = NULL;
        char *error = NULL;

        cr_assert_eq(fabrics_result_parse(PATH, text, &r, &error), -EINVAL, "parsed: %s", text);
        cr_assert_null(r);
        cr_assert_not_null(error);
        cr_assert_not_null(strstr(error, want), "%s (wanted %s)", error, want);
        cr_assert_eq(strncmp(error, PATH ": ", strlen(PATH) + 2), 0, "%s does not name the file", error);
        free(error);
}

Test(fabrics_result, a_connect_answer_is_read_whole) {
        FabricsResult *r = parse_ok(
                "{\"token\": 1764900000123456, \"verb\": \"connect\", \"finished_at\": 1764900001000000, \"exit\": 2,"
                " \"connections\": [{\"transport\": \"tcp\", \"traddr\": \"127.0.0.1\", \"trsvcid\": \"4420\","
                " \"subsysnqn\": \"nqn.a\", \"description\": \"tcp 127.0.0.1:4420 nqn.a\", \"outcome\": \"failed\","
                " \"error_kind\": \"no-answer\", \"errno\": 11, \"next_try_usec\": 1764900011000000,"
                " \"give_up_at_usec\": 0}, {\"outcome\": \"back\", \"controller\": \"nvme3\"}]}");

        cr_assert_eq(r->token, 1764900000123456ULL);
        cr_assert_str_eq(r->verb, "connect");
        cr_assert_eq(r->exit, 2);
        cr_assert_null(r->error);
        cr_assert_eq(r->n_connections, 2);
        cr_assert_eq(r->connections[0].outcome, FABRICS_RESULT_FAILED);
        cr_assert_str_eq(r->connections[0].error_kind, "no-answer");
        cr_assert_eq(r->connections[0].error, 11);
        cr_assert_eq(r->connections[0].next_try_usec, 1764900011000000ULL);
        cr_assert_eq(r->connections[0].give_up_at_usec, 0);
        cr_assert_eq(r->connections[1].outcome, FABRICS_RESULT_BACK);
        cr_assert_str_eq(r->connections[1].controller, "nvme3");
        fabrics_result_free(r);
}

Test(fabrics_result, a_failed_verb_and_no_connections) {
        FabricsResult *r = parse_ok("{\"token\": 0, \"verb\": \"capture\", \"exit\": 1, \"error\": \"/run/nvme-swapguard/"
                                    "fabrics-request: line 3: unknown key\"}");

        cr_assert_eq(r->n_connections, 0);
        cr_assert_str_eq(r->error, "/run/nvme-swapguard/fabrics-request: line 3: unknown key");
        fabrics_result_free(r);
}

Test(fabrics_result, bad_input_names_the_file_and_the_field) {
        parse_bad("", "(document)");
        parse_bad("{\"token\": 1, \"verb\": \"conn", "(document)");
        parse_bad("[1]", "(document): not a JSON object");
        parse_bad("{\"token\": \"1\", \"verb\": \"connect\"}", "token: not an integer");
        parse_bad("{\"token\": -1, \"verb\": \"connect\"}", "token: negative");
        parse_bad("{\"token\": 1}", "verb: missing");
        parse_bad("{\"token\": 1, \"verb\": \"forget\"}", "verb: missing, or not");
        parse_bad("{\"token\": 1, \"verb\": \"connect\", \"exit\": 999}", "exit: out of range");
        parse_bad("{\"token\": 1, \"verb\": \"connect\", \"connections\": {}}", "connections: not an array");
        parse_bad("{\"token\": 1, \"verb\": \"connect\", \"connections\": [1]}", "connections[0]: not an object");
        parse_bad("{\"token\": 1, \"verb\": \"connect\", \"connections\": [{\"outcome\": \"back\"}, {}]}",
                  "connections[1].outcome: missing");
        parse_bad("{\"token\": 1, \"verb\": \"connect\", \"connections\": [{\"outcome\": \"maybe\"}]}",
                  "connections[0].outcome: unknown value \"maybe\"");
        parse_bad("{\"token\": 1, \"verb\": \"connect\", \"connections\": [{\"outcome\": \"back\", \"traddr\": 7}]}",
                  "connections[0].traddr: not a string");
        parse_bad("{\"token\": 1, \"verb\": \"connect\", \"connections\": [{\"outcome\": \"failed\", \"errno\": 99999}]}",
                  "connections[0].errno: out of range");
        parse_bad("{\"token\": 1, \"verb\": \"connect\", \"connections\": [{\"outcome\": \"failed\", "
                  "\"next_try_usec\": -5}]}",
                  "connections[0].next_try_usec: negative");
}

Test(fabrics_result, the_token_of_an_unparsable_answer) {
        cr_assert_eq(fabrics_result_peek_token("{\"token\": 42, \"verb\": 3}"), 42);
        cr_assert_eq(fabrics_result_peek_token("not json"), 0);
        cr_assert_eq(fabrics_result_peek_token(NULL), 0);
}

static FabricsResult *pending(const uint64_t *next_try, const FabricsResultOutcome *outcome, size_t n) {
        FabricsResult *r = calloc(1, sizeof(*r));

        r->connections = calloc(n, sizeof(*r->connections));
        r->n_connections = n;
        for (size_t i = 0; i < n; i++)
                r->connections[i] = (FabricsResultConnection) { .outcome = outcome[i], .next_try_usec = next_try[i] };
        return r;
}

Test(fabrics_result, the_next_connect_is_at_the_earliest_next_try_of_a_pending_one) {
        const uint64_t now = 1000000000ULL, max = 3600000000ULL;
        FabricsResult *r = pending((const uint64_t[]) { now + 30000000, now + 10000000, now + 5000000, 0 },
                                   (const FabricsResultOutcome[]) { FABRICS_RESULT_FAILED, FABRICS_RESULT_FAILED,
                                                                    FABRICS_RESULT_LOST, FABRICS_RESULT_FAILED },
                                   4);
        size_t back, p, lost;

        /* the lost one's next try is no try; a failed one without next try waits for a load */
        cr_assert_eq(fabrics_result_next_delay(r, now, max), 10000000ULL);
        /* due already, or a clock stepped back past it: now, never later */
        cr_assert_eq(fabrics_result_next_delay(r, now + 20000000, max), 0);
        /* a next try hours away (a clock stepped forward): capped */
        cr_assert_eq(fabrics_result_next_delay(r, now, 1000000), 1000000);
        fabrics_result_count(r, &back, &p, &lost);
        cr_assert_eq(back, 0);
        cr_assert_eq(p, 3);
        cr_assert_eq(lost, 1);
        fabrics_result_free(r);

        r = pending((const uint64_t[]) { 0, now + 1 },
                    (const FabricsResultOutcome[]) { FABRICS_RESULT_BACK, FABRICS_RESULT_SKIPPED_NO_TRANSPORT }, 2);
        cr_assert_eq(fabrics_result_next_delay(r, now, max), UINT64_MAX, "nothing to try again by the clock");
        cr_assert_eq(fabrics_result_next_delay(NULL, now, max), UINT64_MAX);
        fabrics_result_free(r);
}
