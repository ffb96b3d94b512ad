/* SPDX-License-Identifier: Apache-2.0 */
/* A pass's result as JSON and result.json (see fabrics-result.h). */
#include <stdlib.h>
#include <sys/stat.h>

#include "actions/fabrics-result.h"
#include "host/host-root.h"
#include "nvme/fabrics-paths.h"
#include "util/fileio.h"
#include "util/json-util.h"

static int add_string(json_object *o, const char *key, const char *s) {
        return s ? json_add_new(o, key, json_object_new_string(s)) : json_add(o, key, NULL);
}

static int entry_json(const FabricsController *c, const FabricsPassEntry *e, json_object **ret) {
        const char *keys[] = { "transport",  "traddr",    "trsvcid", "host_traddr", "host_iface",
                               "subsysnqn", "hostnqn",   "hostid",  "old_name" };
        const char *values[] = { c->transport,  c->traddr,  c->trsvcid, c->host_traddr, c->host_iface,
                                 c->subsysnqn, c->hostnqn, c->hostid,  c->name };
        _cleanup_json_ json_object *o = json_object_new_object();
        _cleanup_free_ char *description = fabrics_controller_describe(c);
        int r;

        if (!o || !description)
                return -ENOMEM;
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if ((r = add_string(o, keys[i], values[i])) < 0)
                        return r;
        if ((r = add_string(o, "description", description)) < 0 ||
            (r = add_string(o, "outcome", fabrics_outcome_to_string(e->outcome))) < 0 ||
            (r = add_string(o, "error_kind", fabrics_error_kind_to_string(e->error_kind))) < 0 ||
            (r = json_add_new(o, "errno", json_object_new_int(e->error))) < 0 ||
            (r = add_string(o, "message", e->message)) < 0 || (r = add_string(o, "controller", e->controller)) < 0 ||
            (r = json_add_new(o, "next_try_usec", json_object_new_uint64(e->next_try_usec))) < 0 ||
            (r = json_add_new(o, "give_up_at_usec", json_object_new_uint64(e->give_up_at_usec))) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

int fabrics_result_to_json(const FabricsPassResult *r, FabricsVerb verb, uint64_t token, uint64_t finished_at_usec,
                           const char *error, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object(), *a = json_object_new_array();
        int k;

        if (!o || !a)
                return -ENOMEM;
        for (size_t i = 0; r && i < r->connections->n_controllers; i++) {
                json_object *e;

                if ((k = entry_json(&r->connections->controllers[i], &r->entries[i], &e)) < 0 ||
                    (k = json_array_add(a, e)) < 0)
                        return k;
        }
        if ((k = json_add_new(o, "token", json_object_new_uint64(token))) < 0 ||
            (k = add_string(o, "verb", fabrics_verb_to_string(r ? r->verb : verb))) < 0 ||
            (k = json_add_new(o, "finished_at", json_object_new_uint64(finished_at_usec))) < 0 ||
            (k = json_add_new(o, "exit", json_object_new_int(r && !error ? r->exit_code : FABRICS_EXIT_ERROR))) < 0 ||
            (k = add_string(o, "error", error ?: r ? r->error : "not run")) < 0 ||
            (k = json_add(o, "connections", TAKE_PTR(a))) < 0)
                return k;
        *ret = TAKE_PTR(o);
        return 0;
}

int fabrics_result_write(const FabricsPassResult *r, FabricsVerb verb, uint64_t token, uint64_t finished_at_usec,
                         const char *error) {
        _cleanup_json_ json_object *o = NULL;
        _cleanup_free_ char *path = NULL, *dir = NULL, *text = NULL;
        int k;

        if ((k = host_path(FABRICS_RESULT_PATH, &path)) < 0 || (k = host_path(FABRICS_STATE_DIR, &dir)) < 0 ||
            (k = fabrics_result_to_json(r, verb, token, finished_at_usec, error, &o)) < 0 ||
            (k = json_to_text(o, &text)) < 0)
                return k;
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        return write_file_atomic(path, text, 0644);
}
