/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "publish/state-file-fabrics.h"
#include "report/daemon-state.h"
#include "util/json-util.h"
#include "util/macro.h"

static int add_string(json_object *o, const char *key, const char *v) {
        return v ? json_add_new(o, key, json_object_new_string(v)) : 0;
}

static json_object *connection_to_json(const NodeFabricsConnection *c) {
        _cleanup_json_ json_object *o = json_object_new_object();

        if (!o || add_string(o, DAEMON_STATE_KEY_FABRICS_DESCRIPTION, c->description) < 0 ||
            add_string(o, DAEMON_STATE_KEY_FABRICS_CONTROLLER, c->controller) < 0 ||
            add_string(o, DAEMON_STATE_KEY_FABRICS_NEW_CONTROLLER, c->new_controller) < 0 ||
            add_string(o, DAEMON_STATE_KEY_FABRICS_TRANSPORT, c->transport) < 0 ||
            add_string(o, DAEMON_STATE_KEY_FABRICS_ADDRESS, c->address) < 0 ||
            add_string(o, DAEMON_STATE_KEY_FABRICS_NQN, c->subsysnqn) < 0 ||
            add_string(o, DAEMON_STATE_KEY_FABRICS_OUTCOME, node_fabrics_outcome_to_string(c->outcome)) < 0 ||
            (c->error && json_add_new(o, DAEMON_STATE_KEY_FABRICS_ERRNO, json_object_new_int(c->error)) < 0) ||
            add_string(o, DAEMON_STATE_KEY_FABRICS_ERROR, c->error_message) < 0 ||
            add_string(o, DAEMON_STATE_KEY_FABRICS_ERROR_KIND, c->error_kind) < 0 ||
            add_string(o, DAEMON_STATE_KEY_FABRICS_TRADDR, c->traddr) < 0 ||
            add_string(o, DAEMON_STATE_KEY_FABRICS_TRSVCID, c->trsvcid) < 0 ||
            (c->next_try_usec &&
             json_add_new(o, DAEMON_STATE_KEY_FABRICS_NEXT_TRY, json_object_new_int64((int64_t) c->next_try_usec)) < 0) ||
            (c->give_up_at_usec &&
             json_add_new(o, DAEMON_STATE_KEY_FABRICS_GIVE_UP_AT, json_object_new_int64((int64_t) c->give_up_at_usec)) < 0))
                return NULL;
        return TAKE_PTR(o);
}

json_object *fabrics_to_json(const NodeFabrics *f) {
        _cleanup_json_ json_object *a = json_object_new_array();

        for (size_t i = 0; a && f && i < f->n; i++)
                if (json_array_add(a, connection_to_json(&f->items[i])) < 0)
                        return NULL;
        return TAKE_PTR(a);
}

static int copy(json_object *o, const char *key, char **ret) {
        const char *v = json_get_string(o, key);

        *ret = v ? strdup(v) : NULL;
        return v && !*ret ? -ENOMEM : 0;
}

static int connection_from_json(json_object *x, NodeFabrics *f) {
        NodeFabricsOutcome outcome = node_fabrics_outcome_from_string(json_get_string(x, DAEMON_STATE_KEY_FABRICS_OUTCOME));
        NodeFabricsConnection *c;
        int64_t e = json_get_int64(x, DAEMON_STATE_KEY_FABRICS_ERRNO);

        if (outcome < 0)
                return 0;
        c = node_fabrics_add(f);
        if (!c)
                return -ENOMEM;
        c->outcome = outcome;
        c->error = e > 0 && e < 4096 ? (int) e : 0;
        if (copy(x, DAEMON_STATE_KEY_FABRICS_DESCRIPTION, &c->description) < 0 ||
            copy(x, DAEMON_STATE_KEY_FABRICS_CONTROLLER, &c->controller) < 0 ||
            copy(x, DAEMON_STATE_KEY_FABRICS_NEW_CONTROLLER, &c->new_controller) < 0 ||
            copy(x, DAEMON_STATE_KEY_FABRICS_TRANSPORT, &c->transport) < 0 ||
            copy(x, DAEMON_STATE_KEY_FABRICS_ADDRESS, &c->address) < 0 ||
            copy(x, DAEMON_STATE_KEY_FABRICS_NQN, &c->subsysnqn) < 0 ||
            copy(x, DAEMON_STATE_KEY_FABRICS_ERROR, &c->error_message) < 0 ||
            copy(x, DAEMON_STATE_KEY_FABRICS_ERROR_KIND, &c->error_kind) < 0 ||
            copy(x, DAEMON_STATE_KEY_FABRICS_TRADDR, &c->traddr) < 0 ||
            copy(x, DAEMON_STATE_KEY_FABRICS_TRSVCID, &c->trsvcid) < 0)
                return -ENOMEM;
        if (json_get_int64(x, DAEMON_STATE_KEY_FABRICS_NEXT_TRY) > 0)
                c->next_try_usec = (uint64_t) json_get_int64(x, DAEMON_STATE_KEY_FABRICS_NEXT_TRY);
        if (json_get_int64(x, DAEMON_STATE_KEY_FABRICS_GIVE_UP_AT) > 0)
                c->give_up_at_usec = (uint64_t) json_get_int64(x, DAEMON_STATE_KEY_FABRICS_GIVE_UP_AT);
        return 0;
}

int fabrics_from_json(json_object *o, NodeFabrics **ret) {
        _cleanup_(node_fabrics_freep) NodeFabrics *f = NULL;
        json_object *a;
        int r;

        *ret = NULL;
        if (!json_object_object_get_ex(o, DAEMON_STATE_KEY_FABRICS, &a) || !json_object_is_type(a, json_type_array))
                return 0;
        f = calloc(1, sizeof(*f));
        if (!f)
                return -ENOMEM;
        for (size_t i = 0; i < json_object_array_length(a); i++) {
                json_object *x = json_object_array_get_idx(a, i);

                if (!json_object_is_type(x, json_type_object))
                        continue;
                r = connection_from_json(x, f);
                if (r < 0)
                        return r;
        }
        if (f->n > 0)
                *ret = TAKE_PTR(f);
        return 0;
}
