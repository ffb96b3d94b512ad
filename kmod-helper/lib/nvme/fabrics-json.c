/* SPDX-License-Identifier: Apache-2.0 */
/* The fabrics topology as JSON and back: the record's file format, also
 * what --json and the status document show (never a secret: the topology
 * holds none). One object per controller:
 *   {"name","transport","traddr","trsvcid","host_traddr","host_iface",
 *    "subsysnqn","hostnqn","hostid","state","ctrl_loss_tmo","reconnect_delay",
 *    "fast_io_fail_tmo","kato","nr_io_queues","queue_size","tls",
 *    "dhchap_secret","dhchap_ctrl_secret","description",
 *    "namespaces":[{"name","nsid","nguid","uuid","eui"}]}
 * options: a number, "off" (FABRICS_OPT_OFF) or null (FABRICS_OPT_UNSET);
 * dhchap_*: whether a secret is set, never its value. The record wraps
 * them: {"version":1,"controllers":[...]}. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>

#include "nvme/fabrics-record.h"
#include "nvme/nvme-controllers.h"
#include "util/json-util.h"
#include "util/string-util.h"

static json_object *string_or_null(const char *s) {
        return s ? json_object_new_string(s) : NULL;
}

static int add_string(json_object *o, const char *key, const char *s) {
        json_object *v = string_or_null(s);

        return s && !v ? -ENOMEM : json_add(o, key, v);
}

static int add_option(json_object *o, const char *key, int v) {
        if (v == FABRICS_OPT_UNSET)
                return json_add(o, key, NULL);
        return json_add_new(o, key, v == FABRICS_OPT_OFF ? json_object_new_string("off") : json_object_new_int(v));
}

static int namespace_to_json(const FabricsNamespace *n, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        int r;

        if (!o)
                return -ENOMEM;
        if ((r = add_string(o, "name", n->name)) < 0 || (r = json_add_new(o, "nsid", json_object_new_int64(n->nsid))) < 0 ||
            (r = add_string(o, "nguid", n->nguid)) < 0 || (r = add_string(o, "uuid", n->uuid)) < 0 ||
            (r = add_string(o, "eui", n->eui)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

static int add_strings(json_object *o, const FabricsController *c) {
        const char *keys[] = { "name", "transport", "traddr", "trsvcid", "host_traddr", "host_iface",
                               "subsysnqn", "hostnqn", "hostid", "state" };
        const char *values[] = { c->name, c->transport, c->traddr, c->trsvcid, c->host_traddr, c->host_iface,
                                 c->subsysnqn, c->hostnqn, c->hostid, c->state };
        int r;

        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if ((r = add_string(o, keys[i], values[i])) < 0)
                        return r;
        return 0;
}

static int add_options(json_object *o, const FabricsController *c) {
        const char *keys[] = { "ctrl_loss_tmo", "reconnect_delay", "fast_io_fail_tmo", "kato", "nr_io_queues", "queue_size" };
        const int values[] = { c->ctrl_loss_tmo, c->reconnect_delay, c->fast_io_fail_tmo, c->kato, c->nr_io_queues, c->queue_size };
        int r;

        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if ((r = add_option(o, keys[i], values[i])) < 0)
                        return r;
        if ((r = json_add_new(o, "tls", json_object_new_boolean(c->tls))) < 0 ||
            (r = json_add_new(o, "dhchap_secret", json_object_new_boolean(c->dhchap_secret))) < 0 ||
            (r = json_add_new(o, "dhchap_ctrl_secret", json_object_new_boolean(c->dhchap_ctrl_secret))) < 0)
                return r;
        return 0;
}

int fabrics_controller_to_json(const FabricsController *c, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object(), *nss = json_object_new_array();
        _cleanup_free_ char *description = fabrics_controller_describe(c);
        int r;

        if (!o || !nss || !description)
                return -ENOMEM;
        if ((r = add_strings(o, c)) < 0 || (r = add_options(o, c)) < 0 || (r = add_string(o, "description", description)) < 0)
                return r;
        for (size_t i = 0; i < c->n_namespaces; i++) {
                json_object *n;

                if ((r = namespace_to_json(&c->namespaces[i], &n)) < 0 || (r = json_array_add(nss, n)) < 0)
                        return r;
        }
        if ((r = json_add(o, "namespaces", TAKE_PTR(nss))) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

int fabrics_topology_to_json(const FabricsTopology *t, json_object **ret) {
        _cleanup_json_ json_object *a = json_object_new_array();
        int r;

        if (!a)
                return -ENOMEM;
        for (size_t i = 0; t && i < t->n_controllers; i++) {
                json_object *c;

                if ((r = fabrics_controller_to_json(&t->controllers[i], &c)) < 0 || (r = json_array_add(a, c)) < 0)
                        return r;
        }
        *ret = TAKE_PTR(a);
        return 0;
}

/* ---- reading it back ---------------------------------------------------- */

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

static int get_array(Parser *p, json_object *o, const char *field, const char *key, json_object **ret) {
        json_object *v = NULL;

        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_array))
                return fail(p, "%s%s%s: %s", field, *field ? "." : "", key, v ? "not an array" : "missing");
        *ret = v;
        return 0;
}

static int parse_namespace(Parser *p, json_object *o, const char *field, FabricsController *c) {
        FabricsNamespace *n;
        int64_t nsid;
        json_object *v = NULL;
        int r;

        if (!json_object_is_type(o, json_type_object))
                return fail(p, "%s: not an object", field);
        n = fabrics_controller_add_namespace(c);
        if (!n)
                return -ENOMEM;
        if ((r = get_string(p, o, field, "name", false, &n->name)) < 0 ||
            (r = get_string(p, o, field, "nguid", false, &n->nguid)) < 0 ||
            (r = get_string(p, o, field, "uuid", false, &n->uuid)) < 0 ||
            (r = get_string(p, o, field, "eui", false, &n->eui)) < 0)
                return r;
        if (!json_object_object_get_ex(o, "nsid", &v) || !json_object_is_type(v, json_type_int))
                return fail(p, "%s.nsid: %s", field, v ? "not a number" : "missing");
        nsid = json_object_get_int64(v);
        if (nsid < 0 || nsid > UINT_MAX)
                return fail(p, "%s.nsid: %lld is out of range", field, (long long) nsid);
        n->nsid = (unsigned) nsid;
        return 0;
}

static int parse_strings(Parser *p, json_object *o, const char *field, FabricsController *c) {
        const char *keys[] = { "name", "transport", "subsysnqn", "traddr", "trsvcid", "host_traddr",
                               "host_iface", "hostnqn", "hostid", "state" };
        char **fields[] = { &c->name, &c->transport, &c->subsysnqn, &c->traddr, &c->trsvcid, &c->host_traddr,
                            &c->host_iface, &c->hostnqn, &c->hostid, &c->state };
        const char *module;
        int r;

        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if ((r = get_string(p, o, field, keys[i], i < 3, fields[i])) < 0)
                        return r;
        module = nvme_transport_module(c->transport);
        if (!module || streq(module, "nvme"))
                return fail(p, "%s.transport: \"%s\" is no fabrics transport", field, c->transport);
        return 0;
}

static int parse_controller(Parser *p, json_object *o, const char *field, FabricsTopology *t) {
        const char *keys[] = { "ctrl_loss_tmo", "reconnect_delay", "fast_io_fail_tmo", "kato", "nr_io_queues", "queue_size" };
        FabricsController *c;
        json_object *nss;
        int *options[6];
        int r;

        if (!json_object_is_type(o, json_type_object))
                return fail(p, "%s: not an object", field);
        c = fabrics_topology_add_controller(t);
        if (!c)
                return -ENOMEM;
        options[0] = &c->ctrl_loss_tmo, options[1] = &c->reconnect_delay, options[2] = &c->fast_io_fail_tmo;
        options[3] = &c->kato, options[4] = &c->nr_io_queues, options[5] = &c->queue_size;
        if ((r = parse_strings(p, o, field, c)) < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if ((r = get_option(p, o, field, keys[i], options[i])) < 0)
                        return r;
        if ((r = get_bool(p, o, field, "tls", &c->tls)) < 0 ||
            (r = get_bool(p, o, field, "dhchap_secret", &c->dhchap_secret)) < 0 ||
            (r = get_bool(p, o, field, "dhchap_ctrl_secret", &c->dhchap_ctrl_secret)) < 0 ||
            (r = get_array(p, o, field, "namespaces", &nss)) < 0)
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
        json_object *v = NULL, *controllers;
        int r;

        if (!json_object_is_type(root, json_type_object))
                return fail(p, "not a JSON object");
        if (!json_object_object_get_ex(root, "version", &v) || !json_object_is_type(v, json_type_int))
                return fail(p, "version: %s", v ? "not a number" : "missing");
        if (json_object_get_int64(v) != FABRICS_RECORD_VERSION)
                return fail(p, "version: %lld is not %d", (long long) json_object_get_int64(v), FABRICS_RECORD_VERSION);
        if ((r = get_array(p, root, "", "controllers", &controllers)) < 0)
                return r;
        for (size_t i = 0; i < json_object_array_length(controllers); i++) {
                char field[48];

                snprintf(field, sizeof(field), "controllers[%zu]", i);
                if ((r = parse_controller(p, json_object_array_get_idx(controllers, i), field, t)) < 0)
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
