/* SPDX-License-Identifier: Apache-2.0 */
/* The fabrics record's JSON, both ways (the format is in fabrics-record.h).
 * Reading names the field of the first problem, so that an operator can
 * find it in the file kept aside. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>

#include "nvme/fabrics-record-json.h"
#include "nvme/fabrics-record.h"
#include "nvme/nvme-controllers.h"
#include "util/json-util.h"
#include "util/string-util.h"

#define N_STRINGS 10
#define N_OPTIONS 8
#define N_FLAGS 6

/* The controller's fields under their record keys, in one place for both ways. */
typedef struct Fields {
        const char *string_keys[N_STRINGS];
        char **strings[N_STRINGS];
        const char *option_keys[N_OPTIONS];
        int *options[N_OPTIONS];
        const char *flag_keys[N_FLAGS];
        bool *flags[N_FLAGS];
} Fields;

static Fields fields_of(FabricsController *c) {
        return (Fields) {
                .string_keys = { "transport", "subsysnqn", "traddr", "trsvcid", "host_traddr", "host_iface",
                                 "hostnqn", "hostid", "tls_keyring", "tls_configured_key" },
                .strings = { &c->transport, &c->subsysnqn, &c->traddr, &c->trsvcid, &c->host_traddr, &c->host_iface,
                             &c->hostnqn, &c->hostid, &c->tls_keyring, &c->tls_configured_key },
                .option_keys = { "nr_io_queues", "nr_write_queues", "nr_poll_queues", "queue_size", "keep_alive_tmo",
                                 "reconnect_delay", "ctrl_loss_tmo", "fast_io_fail_tmo" },
                .options = { &c->nr_io_queues, &c->nr_write_queues, &c->nr_poll_queues, &c->queue_size, &c->kato,
                             &c->reconnect_delay, &c->ctrl_loss_tmo, &c->fast_io_fail_tmo },
                .flag_keys = { "hdr_digest", "data_digest", "tls", "tls_unknown", "has_dhchap", "has_dhchap_ctrl" },
                .flags = { &c->hdr_digest, &c->data_digest, &c->tls, &c->tls_unknown, &c->dhchap_secret, &c->dhchap_ctrl_secret },
        };
}

/* ---- writing ------------------------------------------------------------ */

static int add_string(json_object *o, const char *key, const char *s) {
        return s ? json_add_new(o, key, json_object_new_string(s)) : json_add(o, key, NULL);
}

static int add_namespaces(json_object *o, const FabricsController *c) {
        _cleanup_json_ json_object *a = json_object_new_array();
        int r;

        if (!a)
                return -ENOMEM;
        for (size_t i = 0; i < c->n_namespaces; i++) {
                const FabricsNamespace *n = &c->namespaces[i];
                _cleanup_json_ json_object *e = json_object_new_object();

                if (!e)
                        return -ENOMEM;
                if ((r = add_string(e, "name", n->name)) < 0 ||
                    (r = json_add_new(e, "nsid", json_object_new_int64(n->nsid))) < 0 ||
                    (r = add_string(e, "nguid", n->nguid)) < 0 || (r = add_string(e, "uuid", n->uuid)) < 0 ||
                    (r = add_string(e, "eui", n->eui)) < 0 || (r = json_array_add(a, TAKE_PTR(e))) < 0)
                        return r;
        }
        return json_add(o, "namespaces", TAKE_PTR(a));
}

static int add_status(json_object *o, const FabricsEntryStatus *s) {
        int r;

        if ((r = add_string(o, "state", fabrics_entry_state_to_string(s->state))) < 0 ||
            (r = json_add_new(o, "captured_at", json_object_new_uint64(s->captured_at))) < 0 ||
            (r = json_add_new(o, "lost_at", json_object_new_uint64(s->lost_at))) < 0 ||
            (r = json_add_new(o, "next_try_at", json_object_new_uint64(s->next_try_at))) < 0 ||
            (r = json_add_new(o, "attempts", json_object_new_int64(s->attempts))) < 0 ||
            (r = add_string(o, "last_error_kind", fabrics_error_kind_to_string(s->last_error_kind))) < 0 ||
            (r = json_add_new(o, "last_errno", json_object_new_int(s->last_errno))) < 0)
                return r;
        return 0;
}

static int entry_to_json(const FabricsController *c, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        _cleanup_free_ char *description = fabrics_controller_describe(c);
        Fields f = fields_of((FabricsController *) c);
        int r;

        if (!o || !description)
                return -ENOMEM;
        for (size_t i = 0; i < N_STRINGS; i++)
                if ((r = add_string(o, f.string_keys[i], *f.strings[i])) < 0)
                        return r;
        if ((r = add_string(o, "old_name", c->name)) < 0 || (r = add_string(o, "description", description)) < 0)
                return r;
        for (size_t i = 0; i < N_OPTIONS; i++) {
                int v = *f.options[i];

                r = v == FABRICS_OPT_UNSET ? json_add(o, f.option_keys[i], NULL)
                    : json_add_new(o, f.option_keys[i], v == FABRICS_OPT_OFF ? json_object_new_string("off")
                                                                             : json_object_new_int(v));
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < N_FLAGS; i++)
                if ((r = json_add_new(o, f.flag_keys[i], json_object_new_boolean(*f.flags[i]))) < 0)
                        return r;
        if ((r = add_status(o, &c->entry)) < 0 || (r = add_namespaces(o, c)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

int fabrics_record_to_json(const FabricsTopology *t, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object(), *a = json_object_new_array();
        int r;

        if (!o || !a)
                return -ENOMEM;
        for (size_t i = 0; t && i < t->n_controllers; i++) {
                json_object *e;

                if ((r = entry_to_json(&t->controllers[i], &e)) < 0 || (r = json_array_add(a, e)) < 0)
                        return r;
        }
        if ((r = json_add_new(o, "version", json_object_new_int(FABRICS_RECORD_VERSION))) < 0 ||
            (r = json_add(o, "connections", TAKE_PTR(a))) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

/* ---- reading ------------------------------------------------------------ */

typedef struct Parser {
        const char *path;
        char *error; /* the first problem: "<path>: <field>: <what>" */
} Parser;

static int fail(Parser *p, const char *fmt, ...) _printf_(2, 3);
static int fail(Parser *p, const char *fmt, ...) {
        _cleanup_free_ char *what = NULL;
        va_list ap;

        va_start(ap, fmt);
        what = strdup_vprintf(fmt, ap);
        va_end(ap);
        if (!what)
                return -ENOMEM;
        free(p->error);
        p->error = strdup_printf("%s: %s", p->path, what);
        return p->error ? -EBADMSG : -ENOMEM;
}

/* A string or null (required: not null either). */
static int get_string(Parser *p, json_object *o, const char *field, const char *key, bool required, char **ret) {
        json_object *v = NULL;

        if (!json_object_object_get_ex(o, key, &v) || !v) {
                if (required)
                        return fail(p, "%s.%s: missing", field, key);
                *ret = NULL;
                return 0;
        }
        if (!json_object_is_type(v, json_type_string))
                return fail(p, "%s.%s: not a string", field, key);
        *ret = strdup(json_object_get_string(v));
        return *ret ? 0 : -ENOMEM;
}

static int get_option(Parser *p, json_object *o, const char *field, const char *key, int *ret) {
        json_object *v = NULL;
        int64_t n;

        if (!json_object_object_get_ex(o, key, &v) || !v)
                return *ret = FABRICS_OPT_UNSET, 0;
        if (json_object_is_type(v, json_type_string) && streq(json_object_get_string(v), "off"))
                return *ret = FABRICS_OPT_OFF, 0;
        if (!json_object_is_type(v, json_type_int))
                return fail(p, "%s.%s: not a number, \"off\" or null", field, key);
        n = json_object_get_int64(v);
        if (n < -1 || n > INT_MAX)
                return fail(p, "%s.%s: %lld is out of range", field, key, (long long) n);
        *ret = (int) n;
        return 0;
}

static int get_bool(Parser *p, json_object *o, const char *field, const char *key, bool *ret) {
        json_object *v = NULL;

        if (!json_object_object_get_ex(o, key, &v) || !v)
                return *ret = false, 0;
        if (!json_object_is_type(v, json_type_boolean))
                return fail(p, "%s.%s: not true or false", field, key);
        *ret = json_object_get_boolean(v);
        return 0;
}

static int get_number(Parser *p, json_object *o, const char *field, const char *key, uint64_t max, uint64_t *ret) {
        json_object *v = NULL;
        int64_t n;

        if (!json_object_object_get_ex(o, key, &v) || !v)
                return *ret = 0, 0;
        if (!json_object_is_type(v, json_type_int))
                return fail(p, "%s.%s: not a number", field, key);
        n = json_object_get_int64(v);
        if (n < 0 || (uint64_t) n > max)
                return fail(p, "%s.%s: %lld is out of range", field, key, (long long) n);
        *ret = (uint64_t) n;
        return 0;
}

static int get_array(Parser *p, json_object *o, const char *field, const char *key, json_object **ret) {
        json_object *v = NULL;

        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_array))
                return fail(p, "%s%s%s: %s", field, *field ? "." : "", key, v ? "not an array" : "missing");
        *ret = v;
        return 0;
}

static int parse_namespace(Parser *p, json_object *o, const char *field, FabricsController *c) {
        FabricsNamespace *n;
        uint64_t nsid;
        int r;

        if (!json_object_is_type(o, json_type_object))
                return fail(p, "%s: not an object", field);
        n = fabrics_controller_add_namespace(c);
        if (!n)
                return -ENOMEM;
        if ((r = get_string(p, o, field, "name", false, &n->name)) < 0 ||
            (r = get_string(p, o, field, "nguid", false, &n->nguid)) < 0 ||
            (r = get_string(p, o, field, "uuid", false, &n->uuid)) < 0 ||
            (r = get_string(p, o, field, "eui", false, &n->eui)) < 0 ||
            (r = get_number(p, o, field, "nsid", UINT_MAX, &nsid)) < 0)
                return r;
        n->nsid = (unsigned) nsid;
        return 0;
}

static int parse_status(Parser *p, json_object *o, const char *field, FabricsEntryStatus *s) {
        _cleanup_free_ char *state = NULL, *kind = NULL;
        uint64_t attempts, last_errno;
        int r;

        if ((r = get_string(p, o, field, "state", true, &state)) < 0 ||
            (r = get_string(p, o, field, "last_error_kind", false, &kind)) < 0 ||
            (r = get_number(p, o, field, "captured_at", UINT64_MAX, &s->captured_at)) < 0 ||
            (r = get_number(p, o, field, "lost_at", UINT64_MAX, &s->lost_at)) < 0 ||
            (r = get_number(p, o, field, "next_try_at", UINT64_MAX, &s->next_try_at)) < 0 ||
            (r = get_number(p, o, field, "attempts", UINT_MAX, &attempts)) < 0 ||
            (r = get_number(p, o, field, "last_errno", 4095, &last_errno)) < 0)
                return r;
        s->state = fabrics_entry_state_from_string(state);
        if (s->state < 0)
                return fail(p, "%s.state: \"%s\" is not \"pending\" or \"lost\"", field, state);
        s->last_error_kind = kind ? fabrics_error_kind_from_string(kind) : FABRICS_ERROR_NONE;
        if (s->last_error_kind < 0)
                return fail(p, "%s.last_error_kind: \"%s\" is no error kind", field, kind);
        s->attempts = (unsigned) attempts;
        s->last_errno = (int) last_errno;
        return 0;
}

static int parse_entry(Parser *p, json_object *o, const char *field, FabricsTopology *t) {
        FabricsController *c;
        const char *module;
        json_object *nss;
        Fields f;
        int r;

        if (!json_object_is_type(o, json_type_object))
                return fail(p, "%s: not an object", field);
        c = fabrics_topology_add_controller(t);
        if (!c)
                return -ENOMEM;
        f = fields_of(c);
        for (size_t i = 0; i < N_STRINGS; i++) /* transport and subsysnqn are required */
                if ((r = get_string(p, o, field, f.string_keys[i], i < 2, f.strings[i])) < 0)
                        return r;
        module = nvme_transport_module(c->transport);
        if (!module || streq(module, "nvme"))
                return fail(p, "%s.transport: \"%s\" is no fabrics transport", field, c->transport);
        if ((r = get_string(p, o, field, "old_name", false, &c->name)) < 0)
                return r;
        for (size_t i = 0; i < N_OPTIONS; i++)
                if ((r = get_option(p, o, field, f.option_keys[i], f.options[i])) < 0)
                        return r;
        for (size_t i = 0; i < N_FLAGS; i++)
                if ((r = get_bool(p, o, field, f.flag_keys[i], f.flags[i])) < 0)
                        return r;
        if ((r = parse_status(p, o, field, &c->entry)) < 0 || (r = get_array(p, o, field, "namespaces", &nss)) < 0)
                return r;
        for (size_t i = 0; i < json_object_array_length(nss); i++) {
                char sub[96];

                snprintf(sub, sizeof(sub), "%s.namespaces[%zu]", field, i);
                if ((r = parse_namespace(p, json_object_array_get_idx(nss, i), sub, c)) < 0)
                        return r;
        }
        return 0;
}

static int parse_record(Parser *p, json_object *root, FabricsTopology *t) {
        json_object *v = NULL, *connections;
        int r;

        if (!json_object_is_type(root, json_type_object))
                return fail(p, "not a JSON object");
        if (!json_object_object_get_ex(root, "version", &v) || !json_object_is_type(v, json_type_int))
                return fail(p, "version: %s", v ? "not a number" : "missing");
        if (json_object_get_int64(v) != FABRICS_RECORD_VERSION)
                return fail(p, "version: %lld is not %d", (long long) json_object_get_int64(v), FABRICS_RECORD_VERSION);
        if ((r = get_array(p, root, "", "connections", &connections)) < 0)
                return r;
        for (size_t i = 0; i < json_object_array_length(connections); i++) {
                char field[48];

                snprintf(field, sizeof(field), "connections[%zu]", i);
                if ((r = parse_entry(p, json_object_array_get_idx(connections, i), field, t)) < 0)
                        return r;
        }
        return 0;
}

int fabrics_record_parse(const char *text, const char *path, FabricsTopology **ret, char **ret_error) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = calloc(1, sizeof(FabricsTopology));
        _cleanup_json_ json_object *root = NULL;
        enum json_tokener_error jerr = json_tokener_success;
        Parser p = { .path = path ?: FABRICS_RECORD_PATH };
        int r;

        if (!t)
                return -ENOMEM;
        root = json_tokener_parse_verbose(text ?: "", &jerr);
        if (!root && jerr == json_tokener_success) /* "null" */
                r = fail(&p, "not a JSON object");
        else if (!root)
                r = fail(&p, "not JSON (%s)", json_tokener_error_desc(jerr));
        else
                r = parse_record(&p, root, t);
        if (r < 0) {
                if (ret_error)
                        *ret_error = TAKE_PTR(p.error);
                free(p.error);
                return r;
        }
        *ret = TAKE_PTR(t);
        return 0;
}
