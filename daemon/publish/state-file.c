/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host/host-root.h"
#include "publish/state-file.h"
#include "publish/state-file-fabrics.h"
#include "util/fileio.h"
#include "util/json-util.h"
#include "util/macro.h"
#include "util/strv.h"


void state_file_clear(StateFile *s) {
        free(s->container_id);
        free(s->pod_name);
        strv_free(s->modules_before);
        strv_free(s->module_builds);
        node_namespaces_free(s->namespaces_before);
        free(s->message);
        strv_free(s->blockers);
        strv_free(s->pins);
        strv_free(s->missing_namespaces);
        free(s->build_container_id);
        strv_free(s->build_modules);
        free(s->gds);
        free(s->gds_nvme);
        free(s->gds_nvidia_fs);
        free(s->gds_match);
        strv_free(s->container_notes);
        free(s->would);
        node_fabrics_free(s->fabrics);
        *s = (StateFile) { .state = swap_state_initial() };
}

void state_file_keep_build(StateFile *to, const StateFile *from) {
        if (from && from->build_container_id && !to->build_container_id)
                to->build_container_id = strdup(from->build_container_id);
        if (from && from->build_modules && !to->build_modules)
                (void) strv_copy(from->build_modules, &to->build_modules);
}

StateFile *state_file_free(StateFile *s) {
        if (!s)
                return NULL;
        state_file_clear(s);
        free(s);
        return NULL;
}


static json_object *strv_to_json(char *const *l) {
        json_object *a = NULL;

        return json_array_from_strv(l, &a) < 0 ? NULL : a;
}

static json_object *namespace_to_json(const NodeNamespace *ns) {
        _cleanup_json_ json_object *o = json_object_new_object();

        if (!o || json_add_new(o, DAEMON_STATE_KEY_NAMESPACE_NAME, json_object_new_string(ns->name ?: "")) < 0 ||
            json_add_new(o, DAEMON_STATE_KEY_NAMESPACE_SERIAL, json_object_new_string(ns->serial ?: "")) < 0 ||
            json_add_new(o, DAEMON_STATE_KEY_NAMESPACE_NSID, json_object_new_int64(ns->nsid)) < 0)
                return NULL;
        return TAKE_PTR(o);
}

static json_object *namespaces_to_json(const NodeNamespaces *n) {
        _cleanup_json_ json_object *a = json_object_new_array();

        for (size_t i = 0; a && n && i < n->n; i++)
                if (json_array_add(a, namespace_to_json(&n->items[i])) < 0)
                        return NULL;
        return TAKE_PTR(a);
}

static int container_to_json(const StateFile *s, json_object *o) {
        json_object *c = json_object_new_object();
        int r;

        r = json_add_new(o, DAEMON_STATE_KEY_CONTAINER, c);
        if (r >= 0)
                r = json_add_new(c, DAEMON_STATE_KEY_CONTAINER_ID, json_object_new_string(s->container_id));
        if (r >= 0)
                r = json_add_new(c, DAEMON_STATE_KEY_CONTAINER_POD, json_object_new_string(s->pod_name ?: ""));
        if (r >= 0)
                r = json_add_new(c, DAEMON_STATE_KEY_CONTAINER_PID, json_object_new_int64(s->container_pid));
        return r;
}

int state_file_to_json(const StateFile *s, char **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        int r = 0;

        if (!o)
                return -ENOMEM;
        r = json_add_new(o, DAEMON_STATE_KEY_STATE, json_object_new_string(swap_state_to_string(s->state) ?: "idle"));
        if (r >= 0)
                r = json_add_new(o, DAEMON_STATE_KEY_SINCE, json_object_new_int64((int64_t) s->since_usec));
        if (r >= 0 && s->container_id)
                r = container_to_json(s, o);
        if (r >= 0)
                r = json_add_new(o, DAEMON_STATE_KEY_MODULES_BEFORE, strv_to_json(s->modules_before));
        if (r >= 0)
                r = json_add_new(o, DAEMON_STATE_KEY_NAMESPACES_BEFORE, namespaces_to_json(s->namespaces_before));
        if (r >= 0)
                r = json_add_new(o, DAEMON_STATE_KEY_READY_DEADLINE,
                                 json_object_new_int64((int64_t) s->ready_deadline_usec));
        if (r >= 0)
                r = json_add_new(o, DAEMON_STATE_KEY_MESSAGE, json_object_new_string(s->message ?: ""));
        if (r >= 0)
                r = json_add_new(o, DAEMON_STATE_KEY_BLOCKERS, strv_to_json(s->blockers));
        if (r >= 0)
                r = json_add_new(o, DAEMON_STATE_KEY_MISSING_NAMESPACES, strv_to_json(s->missing_namespaces));
        if (r >= 0)
                r = json_add_new(o, DAEMON_STATE_KEY_PINS, strv_to_json(s->pins));
        if (r >= 0)
                r = json_add_new(o, DAEMON_STATE_KEY_MODULE_BUILDS, strv_to_json(s->module_builds));
        if (r >= 0 && s->build_container_id)
                r = json_add_new(o, DAEMON_STATE_KEY_BUILD_CONTAINER, json_object_new_string(s->build_container_id));
        if (r >= 0 && s->build_modules)
                r = json_add_new(o, DAEMON_STATE_KEY_BUILD_MODULES, strv_to_json(s->build_modules));
        if (r >= 0 && s->gds)
                r = json_add_new(o, DAEMON_STATE_KEY_GDS, json_object_new_string(s->gds));
        if (r >= 0 && s->gds_nvme)
                r = json_add_new(o, DAEMON_STATE_KEY_GDS_NVME, json_object_new_string(s->gds_nvme));
        if (r >= 0 && s->gds_nvidia_fs)
                r = json_add_new(o, DAEMON_STATE_KEY_GDS_NVIDIA_FS, json_object_new_string(s->gds_nvidia_fs));
        if (r >= 0 && s->gds_match)
                r = json_add_new(o, DAEMON_STATE_KEY_GDS_MATCH, json_object_new_string(s->gds_match));
        if (r >= 0)
                r = json_add_new(o, DAEMON_STATE_KEY_CONTAINER_NOTES, strv_to_json(s->container_notes));
        if (r >= 0)
                r = json_add_new(o, DAEMON_STATE_KEY_MODE,
                                 json_object_new_string(swap_mode_to_string(s->mode) ?: "enforce"));
        if (r >= 0 && s->fabrics && s->fabrics->n > 0)
                r = json_add_new(o, DAEMON_STATE_KEY_FABRICS, fabrics_to_json(s->fabrics));
        if (r >= 0 && s->would)
                r = json_add_new(o, DAEMON_STATE_KEY_WOULD, json_object_new_string(s->would));
        if (r < 0)
                return r;
        return json_to_text(o, ret);
}

static int strv_from_json(json_object *o, const char *key, char ***ret) {
        json_object *a;
        char **l = NULL;

        if (!json_object_object_get_ex(o, key, &a) || !json_object_is_type(a, json_type_array)) {
                *ret = NULL;
                return 0;
        }
        for (size_t i = 0; i < json_object_array_length(a); i++) {
                json_object *v = json_object_array_get_idx(a, i);

                if (json_object_is_type(v, json_type_string) && strv_push(&l, strdup(json_object_get_string(v))) < 0) {
                        strv_free(l);
                        return -ENOMEM;
                }
        }
        *ret = l;
        return 0;
}

static int namespaces_from_json(json_object *o, NodeNamespaces **ret) {
        NodeNamespaces *n = calloc(1, sizeof(*n));
        json_object *a;
        size_t len;

        if (!n)
                return -ENOMEM;
        if (!json_object_object_get_ex(o, DAEMON_STATE_KEY_NAMESPACES_BEFORE, &a) ||
            !json_object_is_type(a, json_type_array)) {
                *ret = n;
                return 0;
        }
        len = json_object_array_length(a);
        n->items = calloc(len ?: 1, sizeof(NodeNamespace));
        if (!n->items) {
                node_namespaces_free(n);
                return -ENOMEM;
        }
        for (size_t i = 0; i < len; i++) {
                json_object *x = json_object_array_get_idx(a, i);
                NodeNamespace *ns = &n->items[n->n];

                if (!json_object_is_type(x, json_type_object))
                        continue;
                ns->name = strdup(json_get_string(x, DAEMON_STATE_KEY_NAMESPACE_NAME) ?: "");
                ns->serial = strdup(json_get_string(x, DAEMON_STATE_KEY_NAMESPACE_SERIAL) ?: "");
                ns->nsid = (unsigned) json_get_int64(x, DAEMON_STATE_KEY_NAMESPACE_NSID);
                n->n++;
                if (!ns->name || !ns->serial) {
                        node_namespaces_free(n);
                        return -ENOMEM;
                }
        }
        *ret = n;
        return 0;
}

static int container_from_json(json_object *o, StateFile *s) {
        json_object *c;
        const char *id;

        if (!json_object_object_get_ex(o, DAEMON_STATE_KEY_CONTAINER, &c) || !json_object_is_type(c, json_type_object))
                return 0;
        id = json_get_string(c, DAEMON_STATE_KEY_CONTAINER_ID);
        if (!id)
                return 0;
        s->container_id = strdup(id);
        s->pod_name = strdup(json_get_string(c, DAEMON_STATE_KEY_CONTAINER_POD) ?: "");
        s->container_pid = (pid_t) json_get_int64(c, DAEMON_STATE_KEY_CONTAINER_PID);
        return s->container_id && s->pod_name ? 0 : -ENOMEM;
}

static int copy_string(json_object *o, const char *key, char **ret) {
        const char *v = json_get_string(o, key);

        *ret = v ? strdup(v) : NULL;
        return v && !*ret ? -ENOMEM : 0;
}

static int gds_from_json(json_object *o, StateFile *s) {
        int r = copy_string(o, DAEMON_STATE_KEY_GDS_NVME, &s->gds_nvme);

        if (r >= 0)
                r = copy_string(o, DAEMON_STATE_KEY_GDS_NVIDIA_FS, &s->gds_nvidia_fs);
        if (r >= 0)
                r = copy_string(o, DAEMON_STATE_KEY_GDS_MATCH, &s->gds_match);
        return r;
}

static int state_file_from_object(json_object *o, StateFile **ret) {
        _cleanup_(state_file_freep) StateFile *s = calloc(1, sizeof(*s));
        const char *message, *build, *gds;
        int r;

        if (!s)
                return -ENOMEM;
        s->state = swap_state_from_string(json_get_string(o, DAEMON_STATE_KEY_STATE));
        if (s->state < 0)
                return -EBADMSG;
        s->since_usec = (uint64_t) json_get_int64(o, DAEMON_STATE_KEY_SINCE);
        r = container_from_json(o, s);
        if (r < 0)
                return r;
        s->ready_deadline_usec = (uint64_t) json_get_int64(o, DAEMON_STATE_KEY_READY_DEADLINE);
        message = json_get_string(o, DAEMON_STATE_KEY_MESSAGE);
        if (message && !(s->message = strdup(message)))
                return -ENOMEM;
        build = json_get_string(o, DAEMON_STATE_KEY_BUILD_CONTAINER);
        if (build && !(s->build_container_id = strdup(build)))
                return -ENOMEM;
        gds = json_get_string(o, DAEMON_STATE_KEY_GDS);
        if (gds && !(s->gds = strdup(gds)))
                return -ENOMEM;
        r = gds_from_json(o, s);
        if (r >= 0)
                r = copy_string(o, DAEMON_STATE_KEY_WOULD, &s->would);
        if (r < 0)
                return r;
        /* Absent (a file written before Mode= existed): that instance enforced. */
        s->mode = json_get_string(o, DAEMON_STATE_KEY_MODE) ? swap_mode_from_string(json_get_string(o, DAEMON_STATE_KEY_MODE))
                                                            : SWAP_MODE_ENFORCE;
        if (s->mode < 0)
                return -EBADMSG;
        r = strv_from_json(o, DAEMON_STATE_KEY_MODULES_BEFORE, &s->modules_before);
        if (r >= 0)
                r = strv_from_json(o, DAEMON_STATE_KEY_BLOCKERS, &s->blockers);
        if (r >= 0)
                r = strv_from_json(o, DAEMON_STATE_KEY_MISSING_NAMESPACES, &s->missing_namespaces);
        if (r >= 0)
                r = strv_from_json(o, DAEMON_STATE_KEY_PINS, &s->pins);
        if (r >= 0)
                r = strv_from_json(o, DAEMON_STATE_KEY_MODULE_BUILDS, &s->module_builds);
        if (r >= 0)
                r = strv_from_json(o, DAEMON_STATE_KEY_BUILD_MODULES, &s->build_modules);
        if (r >= 0)
                r = strv_from_json(o, DAEMON_STATE_KEY_CONTAINER_NOTES, &s->container_notes);
        if (r >= 0)
                r = namespaces_from_json(o, &s->namespaces_before);
        if (r >= 0)
                r = fabrics_from_json(o, &s->fabrics);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}

int state_file_from_json(const char *text, StateFile **ret) {
        _cleanup_json_ json_object *o = NULL;
        int r;

        r = daemon_state_parse(text, &o);
        if (r < 0)
                return r;
        return state_file_from_object(o, ret);
}

/* What this process last wrote, and to which file: a transition that
 * changes nothing in the record (the dispatch loop persists after every
 * step and once more after the chain) is not written again. The file is
 * the one we wrote while its inode, size and mtime are (a file removed,
 * replaced or edited behind our back is written again). */
static struct {
        char *path, *text;
        struct stat st;
} last_written;

static bool still_written(const char *path, const char *text) {
        struct stat st;

        return last_written.text && streq(last_written.path, path) && streq(last_written.text, text) &&
               stat(path, &st) >= 0 && st.st_dev == last_written.st.st_dev && st.st_ino == last_written.st.st_ino &&
               st.st_size == last_written.st.st_size && st.st_mtim.tv_sec == last_written.st.st_mtim.tv_sec &&
               st.st_mtim.tv_nsec == last_written.st.st_mtim.tv_nsec;
}

static void remember_written(char **path, char **text) {
        struct stat st;

        free(last_written.path);
        free(last_written.text);
        last_written.path = last_written.text = NULL;
        if (stat(*path, &st) < 0)
                return;
        last_written.path = TAKE_PTR(*path);
        last_written.text = TAKE_PTR(*text);
        last_written.st = st;
}

int state_file_write(const StateFile *s) {
        _cleanup_free_ char *dir = NULL, *path = NULL, *text = NULL;
        int r;

        r = host_path(STATE_DIR, &dir);
        if (r >= 0)
                r = host_path(STATE_FILE, &path);
        if (r >= 0)
                r = state_file_to_json(s, &text);
        if (r < 0)
                return r;
        if (still_written(path, text))
                return 0;
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        r = write_file_atomic(path, text, 0644);
        if (r >= 0)
                remember_written(&path, &text);
        return r;
}

int state_file_read(StateFile **ret) {
        _cleanup_json_ json_object *o = NULL;
        int r;

        r = daemon_state_read(&o);
        if (r < 0)
                return r;
        if (!o)
                return -ENOENT;
        return state_file_from_object(o, ret);
}
