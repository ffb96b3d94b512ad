/* SPDX-License-Identifier: Apache-2.0 */
/* The secrets file of the fabrics record (see fabrics-secrets.h). Every
 * buffer that held a secret is erased before it is freed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host-root.h"
#include "nvme/fabrics-record.h"
#include "nvme/fabrics-secrets.h"
#include "util/fileio.h"
#include "util/json-util.h"

#define FABRICS_SECRETS_MAX (1024u * 1024u)

void fabrics_secret_free(char *secret) {
        if (!secret)
                return;
        explicit_bzero(secret, strlen(secret));
        free(secret);
}

/* A controller's secret from sysfs; NULL when it shows "none". */
static int read_sysfs_secret(const char *ctrl, const char *attr, char **ret) {
        _cleanup_free_ char *path = NULL;
        _cleanup_secret_ char *value = NULL;
        int r;

        r = host_pathf(&path, "/sys/class/nvme/%s/%s", ctrl, attr);
        if (r < 0)
                return r;
        r = read_one_line_file(path, &value);
        if (r < 0)
                return r;
        *ret = streq(value, "none") || !*value ? NULL : TAKE_PTR(value);
        return 0;
}

static int add_value(json_object *o, const char *key, const char *value) {
        return value ? json_add_new(o, key, json_object_new_string(value)) : json_add(o, key, NULL);
}

/* The secrets of a live controller (its name now: live_name), or, for one
 * that is not connected now (a pending record's, kept across a second
 * unload), those the secrets file already holds for that connection. */
static int add_secrets(json_object *o, const FabricsController *c, const char *live_name) {
        _cleanup_secret_ char *host = NULL, *ctrl = NULL;
        int r;

        if (live_name) {
                if (c->dhchap_secret && (r = read_sysfs_secret(live_name, "dhchap_secret", &host)) < 0)
                        return r;
                if (c->dhchap_ctrl_secret && (r = read_sysfs_secret(live_name, "dhchap_ctrl_secret", &ctrl)) < 0)
                        return r;
        } else if ((r = fabrics_secrets_load(c, &host, &ctrl)) < 0 && r != -ENOENT)
                return r;
        if ((r = add_value(o, "dhchap_secret", host)) < 0)
                return r;
        return add_value(o, "dhchap_ctrl_secret", ctrl);
}

static const char *const identity_keys[] = { "transport",  "traddr",    "trsvcid", "host_traddr",
                                             "host_iface", "subsysnqn", "hostnqn", "hostid" };

static int entry_json(const FabricsController *c, const char *live_name, json_object **ret) {
        const char *values[] = { c->transport,  c->traddr,    c->trsvcid, c->host_traddr,
                                 c->host_iface, c->subsysnqn, c->hostnqn, c->hostid };
        _cleanup_json_erase_ json_object *o = json_object_new_object();
        int r;

        if (!o)
                return -ENOMEM;
        for (size_t i = 0; i < ELEMENTSOF(identity_keys); i++)
                if ((r = json_add(o, identity_keys[i], values[i] ? json_object_new_string(values[i]) : NULL)) < 0)
                        return r;
        if ((r = add_secrets(o, c, live_name)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

/* The name the connection has now, by its identity (never by the recorded
 * name: after a swap another controller may have it). */
static const char *live_name(const FabricsTopology *now, const FabricsController *c) {
        const FabricsController *l = fabrics_topology_find(now, c);

        return l ? l->name : NULL;
}

static int secrets_json(const FabricsTopology *t, const FabricsTopology *now, json_object **ret) {
        _cleanup_json_erase_ json_object *o = json_object_new_object();
        json_object *list = json_object_new_array();
        int r;

        if (!o || json_add_new(o, "secrets", list) < 0 ||
            json_add_new(o, "version", json_object_new_int(FABRICS_RECORD_VERSION)) < 0)
                return -ENOMEM;
        for (size_t i = 0; t && i < t->n_controllers; i++) {
                const FabricsController *c = &t->controllers[i];
                json_object *e;

                if (!c->dhchap_secret && !c->dhchap_ctrl_secret)
                        continue;
                if ((r = entry_json(c, live_name(now, c), &e)) < 0 || (r = json_array_add(list, e)) < 0)
                        return r;
        }
        *ret = json_object_array_length(list) > 0 ? TAKE_PTR(o) : NULL;
        return 0;
}

int fabrics_secrets_remove(void) {
        _cleanup_free_ char *path = NULL;
        int r = host_path(FABRICS_SECRETS_PATH, &path);

        if (r < 0)
                return r;
        return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
}

int fabrics_secrets_save(const FabricsTopology *record, const FabricsTopology *live) {
        _cleanup_json_erase_ json_object *o = NULL;
        _cleanup_free_ char *path = NULL, *dir = NULL;
        const char *text;
        int r;

        r = secrets_json(record, live, &o);
        if (r < 0)
                return r;
        if (!o)
                return fabrics_secrets_remove();
        if ((r = host_path(FABRICS_SECRETS_PATH, &path)) < 0 || (r = host_path(FABRICS_STATE_DIR, &dir)) < 0)
                return r;
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        return text ? write_file_atomic_exclusive(path, text, 0600) : -ENOMEM;
}

static bool entry_matches(json_object *e, const FabricsController *c) {
        FabricsController k = {};
        char **fields[] = { &k.transport,  &k.traddr,    &k.trsvcid, &k.host_traddr,
                            &k.host_iface, &k.subsysnqn, &k.hostnqn, &k.hostid };

        if (!json_object_is_type(e, json_type_object))
                return false;
        for (size_t i = 0; i < ELEMENTSOF(identity_keys); i++)
                *fields[i] = (char *) json_get_string(e, identity_keys[i]);
        return fabrics_controller_same_connection(&k, c);
}

static int copy_secret(json_object *e, const char *key, char **ret) {
        const char *v = json_get_string(e, key);

        *ret = v ? strdup(v) : NULL;
        return v && !*ret ? -ENOMEM : 0;
}

int fabrics_secrets_load(const FabricsController *c, char **ret_host, char **ret_ctrl) {
        _cleanup_json_erase_ json_object *o = NULL;
        _cleanup_secret_ char *text = NULL, *host = NULL, *ctrl = NULL;
        _cleanup_free_ char *path = NULL;
        json_object *list = NULL;
        int r;

        r = host_path(FABRICS_SECRETS_PATH, &path);
        if (r < 0)
                return r;
        r = read_regular_file(path, FABRICS_SECRETS_MAX, &text, NULL);
        if (r < 0)
                return r;
        o = json_tokener_parse(text);
        if (!o || !json_object_object_get_ex(o, "secrets", &list) || !json_object_is_type(list, json_type_array))
                return -EBADMSG;
        for (size_t i = 0; i < json_object_array_length(list); i++) {
                json_object *e = json_object_array_get_idx(list, i);

                if (!entry_matches(e, c))
                        continue;
                if ((r = copy_secret(e, "dhchap_secret", &host)) < 0 || (r = copy_secret(e, "dhchap_ctrl_secret", &ctrl)) < 0)
                        return r;
                *ret_host = TAKE_PTR(host);
                *ret_ctrl = TAKE_PTR(ctrl);
                return 0;
        }
        return -ENOENT;
}
