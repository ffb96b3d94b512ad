/* SPDX-License-Identifier: Apache-2.0 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json-util.h"
#include "util/strv.h"
#include "watch/fabrics-result.h"

static const char *const outcome_names[_FABRICS_RESULT_OUTCOME_MAX] = {
        [FABRICS_RESULT_CAPTURED] = "captured",
        [FABRICS_RESULT_BACK] = "back",
        [FABRICS_RESULT_ALREADY_LIVE] = "already-live",
        [FABRICS_RESULT_FAILED] = "failed",
        [FABRICS_RESULT_SKIPPED_NO_TRANSPORT] = "skipped-no-transport",
        [FABRICS_RESULT_LOST] = "lost",
};

const char *fabrics_result_outcome_to_string(FabricsResultOutcome o) {
        return o >= 0 && o < _FABRICS_RESULT_OUTCOME_MAX ? outcome_names[o] : NULL;
}

FabricsResultOutcome fabrics_result_outcome_from_string(const char *s) {
        for (int i = 0; s && i < _FABRICS_RESULT_OUTCOME_MAX; i++)
                if (streq(s, outcome_names[i]))
                        return i;
        return _FABRICS_RESULT_OUTCOME_INVALID;
}

FabricsResult *fabrics_result_free(FabricsResult *r) {
        if (!r)
                return NULL;
        for (size_t i = 0; i < r->n_connections; i++) {
                FabricsResultConnection *c = &r->connections[i];

                free(c->description);
                free(c->transport);
                free(c->traddr);
                free(c->trsvcid);
                free(c->subsysnqn);
                free(c->controller);
                free(c->error_kind);
                free(c->old_name);
                free(c->message);
        }
        free(r->connections);
        free(r->verb);
        free(r->error);
        free(r);
        return NULL;
}

/* -EINVAL with "PATH: FIELD: WHY" in *ret_error. */
static int bad(char **ret_error, const char *path, const char *field, const char *why) {
        if (asprintf(ret_error, "%s: %s: %s", path, field, why) < 0) {
                *ret_error = NULL;
                return -ENOMEM;
        }
        return -EINVAL;
}

/* An optional string: absent and null are NULL, anything else not a string is an error. */
static int get_string(json_object *o, const char *key, char **ret, const char *path, const char *field,
                      char **ret_error) {
        json_object *v;

        *ret = NULL;
        if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
                return 0;
        if (!json_object_is_type(v, json_type_string))
                return bad(ret_error, path, field, "not a string");
        *ret = strdup(json_object_get_string(v));
        return *ret ? 0 : -ENOMEM;
}

/* An optional non-negative integer (absent: 0). */
static int get_u64(json_object *o, const char *key, uint64_t *ret, const char *path, const char *field,
                   char **ret_error) {
        json_object *v;
        int64_t x;

        *ret = 0;
        if (!json_object_object_get_ex(o, key, &v))
                return 0;
        if (!json_object_is_type(v, json_type_int))
                return bad(ret_error, path, field, "not an integer");
        x = json_object_get_int64(v);
        if (x < 0)
                return bad(ret_error, path, field, "negative");
        *ret = (uint64_t) x;
        return 0;
}

static int parse_connection(json_object *x, size_t i, const char *path, FabricsResultConnection *c,
                            char **ret_error) {
        static const struct {
                const char *key;
                size_t offset;
        } strings[] = {
                { "description", offsetof(FabricsResultConnection, description) },
                { "transport", offsetof(FabricsResultConnection, transport) },
                { "traddr", offsetof(FabricsResultConnection, traddr) },
                { "trsvcid", offsetof(FabricsResultConnection, trsvcid) },
                { "subsysnqn", offsetof(FabricsResultConnection, subsysnqn) },
                { "controller", offsetof(FabricsResultConnection, controller) },
                { "error_kind", offsetof(FabricsResultConnection, error_kind) },
                { "old_name", offsetof(FabricsResultConnection, old_name) },
                { "message", offsetof(FabricsResultConnection, message) },
        };
        char field[64];
        const char *outcome;
        uint64_t e;
        int r;

        if (!json_object_is_type(x, json_type_object)) {
                snprintf(field, sizeof(field), "connections[%zu]", i);
                return bad(ret_error, path, field, "not an object");
        }
        for (size_t k = 0; k < ELEMENTSOF(strings); k++) {
                snprintf(field, sizeof(field), "connections[%zu].%s", i, strings[k].key);
                r = get_string(x, strings[k].key, (char **) ((uint8_t *) c + strings[k].offset), path, field,
                               ret_error);
                if (r < 0)
                        return r;
        }
        snprintf(field, sizeof(field), "connections[%zu].outcome", i);
        outcome = json_get_string(x, "outcome");
        if (!outcome)
                return bad(ret_error, path, field, "missing or not a string");
        c->outcome = fabrics_result_outcome_from_string(outcome);
        if (c->outcome < 0) {
                _cleanup_free_ char *why = NULL;

                if (asprintf(&why, "unknown value \"%.64s\"", outcome) < 0)
                        return -ENOMEM;
                return bad(ret_error, path, field, why);
        }
        snprintf(field, sizeof(field), "connections[%zu].errno", i);
        r = get_u64(x, "errno", &e, path, field, ret_error);
        if (r < 0)
                return r;
        if (e >= 4096)
                return bad(ret_error, path, field, "out of range");
        c->error = (int) e;
        snprintf(field, sizeof(field), "connections[%zu].next_try_usec", i);
        r = get_u64(x, "next_try_usec", &c->next_try_usec, path, field, ret_error);
        if (r < 0)
                return r;
        snprintf(field, sizeof(field), "connections[%zu].give_up_at_usec", i);
        return get_u64(x, "give_up_at_usec", &c->give_up_at_usec, path, field, ret_error);
}

int fabrics_result_parse(const char *path, const char *text, FabricsResult **ret, char **ret_error) {
        _cleanup_(fabrics_result_freep) FabricsResult *res = NULL;
        _cleanup_json_ json_object *o = NULL;
        enum json_tokener_error jerr = json_tokener_success;
        json_object *a;
        uint64_t x;
        int r;

        *ret = NULL;
        *ret_error = NULL;
        o = json_tokener_parse_verbose(text ?: "", &jerr);
        if (!o)
                return bad(ret_error, path, "(document)", json_tokener_error_desc(jerr));
        if (!json_object_is_type(o, json_type_object))
                return bad(ret_error, path, "(document)", "not a JSON object");
        res = calloc(1, sizeof(*res));
        if (!res)
                return -ENOMEM;
        r = get_u64(o, "token", &res->token, path, "token", ret_error);
        if (r < 0)
                return r;
        r = get_string(o, "verb", &res->verb, path, "verb", ret_error);
        if (r < 0)
                return r;
        if (!res->verb || (!streq(res->verb, "capture") && !streq(res->verb, "connect")))
                return bad(ret_error, path, "verb", "missing, or not \"capture\" or \"connect\"");
        r = get_u64(o, "finished_at", &res->finished_at_usec, path, "finished_at", ret_error);
        if (r < 0)
                return r;
        r = get_u64(o, "exit", &x, path, "exit", ret_error);
        if (r < 0)
                return r;
        if (x > 255)
                return bad(ret_error, path, "exit", "out of range");
        res->exit = (int) x;
        r = get_string(o, "error", &res->error, path, "error", ret_error);
        if (r < 0)
                return r;
        if (json_object_object_get_ex(o, "connections", &a) && !json_object_is_type(a, json_type_null)) {
                size_t n;

                if (!json_object_is_type(a, json_type_array))
                        return bad(ret_error, path, "connections", "not an array");
                n = json_object_array_length(a);
                res->connections = n > 0 ? calloc(n, sizeof(*res->connections)) : NULL;
                if (n > 0 && !res->connections)
                        return -ENOMEM;
                for (size_t i = 0; i < n; i++) {
                        res->n_connections = i + 1; /* freed with the rest on failure */
                        r = parse_connection(json_object_array_get_idx(a, i), i, path, &res->connections[i],
                                             ret_error);
                        if (r < 0)
                                return r;
                }
        }
        *ret = TAKE_PTR(res);
        return 0;
}

uint64_t fabrics_result_peek_token(const char *text) {
        _cleanup_json_ json_object *o = json_tokener_parse(text ?: "");
        int64_t t = o ? json_get_int64(o, "token") : 0;

        return t > 0 ? (uint64_t) t : 0;
}

void fabrics_result_count(const FabricsResult *r, size_t *ret_back, size_t *ret_pending, size_t *ret_lost) {
        size_t back = 0, pending = 0, lost = 0;

        for (size_t i = 0; r && i < r->n_connections; i++)
                switch (r->connections[i].outcome) {
                case FABRICS_RESULT_BACK:
                case FABRICS_RESULT_ALREADY_LIVE:
                        back++;
                        break;
                case FABRICS_RESULT_FAILED:
                case FABRICS_RESULT_SKIPPED_NO_TRANSPORT:
                        pending++;
                        break;
                case FABRICS_RESULT_LOST:
                        lost++;
                        break;
                default:
                        break;
                }
        if (ret_back)
                *ret_back = back;
        if (ret_pending)
                *ret_pending = pending;
        if (ret_lost)
                *ret_lost = lost;
}

uint64_t fabrics_result_next_delay(const FabricsResult *r, uint64_t now_usec, uint64_t max_usec) {
        uint64_t earliest = UINT64_MAX;

        for (size_t i = 0; r && i < r->n_connections; i++) {
                const FabricsResultConnection *c = &r->connections[i];

                if (c->outcome == FABRICS_RESULT_FAILED && c->next_try_usec > 0 && c->next_try_usec < earliest)
                        earliest = c->next_try_usec;
        }
        if (earliest == UINT64_MAX)
                return UINT64_MAX;
        if (earliest <= now_usec)
                return 0;
        return earliest - now_usec < max_usec ? earliest - now_usec : max_usec;
}
