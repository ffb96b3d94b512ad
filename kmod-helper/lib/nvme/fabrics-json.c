/* SPDX-License-Identifier: Apache-2.0 */
/* The fabrics topology as JSON for display (see fabrics-json.h). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>

#include "nvme/fabrics-json.h"
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
        const char *keys[] = { "name",     "transport", "traddr", "trsvcid",     "host_traddr",       "host_iface",
                               "subsysnqn", "hostnqn",  "hostid", "tls_keyring", "tls_configured_key", "state" };
        const char *values[] = { c->name,      c->transport, c->traddr, c->trsvcid,     c->host_traddr,
                                 c->host_iface, c->subsysnqn, c->hostnqn, c->hostid,    c->tls_keyring,
                                 c->tls_configured_key,       c->state };
        int r;

        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if ((r = add_string(o, keys[i], values[i])) < 0)
                        return r;
        return 0;
}

static int add_options(json_object *o, const FabricsController *c) {
        const char *keys[] = { "ctrl_loss_tmo", "reconnect_delay", "fast_io_fail_tmo", "kato",
                               "nr_io_queues",  "nr_write_queues", "nr_poll_queues",   "queue_size" };
        const int values[] = { c->ctrl_loss_tmo, c->reconnect_delay, c->fast_io_fail_tmo, c->kato,
                               c->nr_io_queues,  c->nr_write_queues, c->nr_poll_queues,   c->queue_size };
        int r;

        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if ((r = add_option(o, keys[i], values[i])) < 0)
                        return r;
        if ((r = json_add_new(o, "hdr_digest", json_object_new_boolean(c->hdr_digest))) < 0 ||
            (r = json_add_new(o, "data_digest", json_object_new_boolean(c->data_digest))) < 0 ||
            (r = json_add(o, "tls", c->tls_unknown ? json_object_new_string("unknown") : json_object_new_boolean(c->tls))) < 0 ||
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
