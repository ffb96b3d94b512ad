/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host/host-root.h"
#include "state-file.h"
#include "util/strv.h"
#include "util/macro.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(json_object *, json_object_put);

void state_file_clear(StateFile *s) {
        free(s->container_id);
        free(s->pod_name);
        strv_free(s->modules_before);
        guard_namespaces_free(s->namespaces_before);
        free(s->message);
        strv_free(s->blockers);
        strv_free(s->missing_namespaces);
        *s = (StateFile) { .state = SWAP_STATE_IDLE };
}

StateFile *state_file_free(StateFile *s) {
        if (!s)
                return NULL;
        state_file_clear(s);
        free(s);
        return NULL;
}

static inline void state_file_freep(StateFile **s) {
        state_file_free(*s);
}

static int add(json_object *o, const char *key, json_object *v) {
        if (!v)
                return -ENOMEM;
        if (json_object_object_add(o, key, v) < 0) {
                json_object_put(v);
                return -ENOMEM;
        }
        return 0;
}

static json_object *strv_to_json(char *const *l) {
        json_object *a = json_object_new_array();

        for (char *const *i = l; a && i && *i; i++)
                if (json_object_array_add(a, json_object_new_string(*i)) < 0) {
                        json_object_put(a);
                        return NULL;
                }
        return a;
}

static json_object *namespaces_to_json(const GuardNamespaces *n) {
        json_object *a = json_object_new_array();

        for (size_t i = 0; a && n && i < n->n; i++) {
                json_object *o = json_object_new_object();

                if (!o || add(o, "name", json_object_new_string(n->items[i].name ?: "")) < 0 ||
                    add(o, "serial", json_object_new_string(n->items[i].serial ?: "")) < 0 ||
                    add(o, "nsid", json_object_new_int64(n->items[i].nsid)) < 0 ||
                    json_object_array_add(a, o) < 0) {
                        json_object_put(o);
                        json_object_put(a);
                        return NULL;
                }
        }
        return a;
}

int state_file_to_json(const StateFile *s, char **ret) {
        _cleanup_(json_object_putp) json_object *o = json_object_new_object();
        char *text;
        int r = 0;

        if (!o)
                return -ENOMEM;
        r = add(o, "state", json_object_new_string(swap_state_to_string(s->state) ?: "idle"));
        if (r >= 0)
                r = add(o, "since_usec", json_object_new_int64((int64_t) s->since_usec));
        if (r >= 0 && s->container_id) {
                json_object *c = json_object_new_object();

                r = add(o, "container", c);
                if (r >= 0)
                        r = add(c, "id", json_object_new_string(s->container_id));
                if (r >= 0)
                        r = add(c, "pod", json_object_new_string(s->pod_name ?: ""));
                if (r >= 0)
                        r = add(c, "pid", json_object_new_int64(s->container_pid));
        }
        if (r >= 0)
                r = add(o, "modules_before", strv_to_json(s->modules_before));
        if (r >= 0)
                r = add(o, "namespaces_before", namespaces_to_json(s->namespaces_before));
        if (r >= 0)
                r = add(o, "ready_deadline_usec", json_object_new_int64((int64_t) s->ready_deadline_usec));
        if (r >= 0)
                r = add(o, "message", json_object_new_string(s->message ?: ""));
        if (r >= 0)
                r = add(o, "blockers", strv_to_json(s->blockers));
        if (r >= 0)
                r = add(o, "missing_namespaces", strv_to_json(s->missing_namespaces));
        if (r < 0)
                return r;
        text = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
        if (!text)
                return -ENOMEM;
        *ret = text;
        return 0;
}

static const char *get_string(json_object *o, const char *key) {
        json_object *v;

        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
                return NULL;
        return json_object_get_string(v);
}

static int64_t get_int(json_object *o, const char *key) {
        json_object *v;

        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
                return 0;
        return json_object_get_int64(v);
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

static int namespaces_from_json(json_object *o, GuardNamespaces **ret) {
        GuardNamespaces *n = calloc(1, sizeof(*n));
        json_object *a;
        size_t len;

        if (!n)
                return -ENOMEM;
        if (!json_object_object_get_ex(o, "namespaces_before", &a) || !json_object_is_type(a, json_type_array)) {
                *ret = n;
                return 0;
        }
        len = json_object_array_length(a);
        n->items = calloc(len ?: 1, sizeof(GuardNamespace));
        if (!n->items) {
                guard_namespaces_free(n);
                return -ENOMEM;
        }
        for (size_t i = 0; i < len; i++) {
                json_object *x = json_object_array_get_idx(a, i);
                GuardNamespace *ns = &n->items[n->n];

                if (!json_object_is_type(x, json_type_object))
                        continue;
                ns->name = strdup(get_string(x, "name") ?: "");
                ns->serial = strdup(get_string(x, "serial") ?: "");
                ns->nsid = (unsigned) get_int(x, "nsid");
                n->n++;
                if (!ns->name || !ns->serial) {
                        guard_namespaces_free(n);
                        return -ENOMEM;
                }
        }
        *ret = n;
        return 0;
}

int state_file_from_json(const char *text, StateFile **ret) {
        _cleanup_(json_object_putp) json_object *o = json_tokener_parse(text);
        _cleanup_(state_file_freep) StateFile *s = calloc(1, sizeof(*s));
        json_object *c;
        int r;

        if (!s)
                return -ENOMEM;
        if (!o || !json_object_is_type(o, json_type_object))
                return -EBADMSG;
        s->state = swap_state_from_string(get_string(o, "state"));
        if (s->state < 0)
                return -EBADMSG;
        s->since_usec = (uint64_t) get_int(o, "since_usec");
        if (json_object_object_get_ex(o, "container", &c) && json_object_is_type(c, json_type_object) &&
            get_string(c, "id")) {
                s->container_id = strdup(get_string(c, "id"));
                s->pod_name = strdup(get_string(c, "pod") ?: "");
                s->container_pid = (pid_t) get_int(c, "pid");
                if (!s->container_id || !s->pod_name)
                        return -ENOMEM;
        }
        s->ready_deadline_usec = (uint64_t) get_int(o, "ready_deadline_usec");
        if (get_string(o, "message") && !(s->message = strdup(get_string(o, "message"))))
                return -ENOMEM;
        r = strv_from_json(o, "modules_before", &s->modules_before);
        if (r >= 0)
                r = strv_from_json(o, "blockers", &s->blockers);
        if (r >= 0)
                r = strv_from_json(o, "missing_namespaces", &s->missing_namespaces);
        if (r >= 0)
                r = namespaces_from_json(o, &s->namespaces_before);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}

int state_file_write(const StateFile *s) {
        _cleanup_free_ char *dir = NULL, *path = NULL, *tmp = NULL, *text = NULL;
        _cleanup_close_ int fd = -EBADF;
        size_t n;
        int r;

        r = host_path(STATE_DIR, &dir);
        if (r >= 0)
                r = host_path(STATE_FILE, &path);
        if (r >= 0)
                r = state_file_to_json(s, &text);
        if (r < 0)
                return r;
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        if (asprintf(&tmp, "%s.tmp", path) < 0)
                return -ENOMEM;
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
                return -errno;
        n = strlen(text);
        if (write(fd, text, n) != (ssize_t) n || write(fd, "\n", 1) != 1 || fsync(fd) < 0) {
                r = errno ? -errno : -EIO;
                (void) unlink(tmp);
                return r;
        }
        if (rename(tmp, path) < 0) {
                r = -errno;
                (void) unlink(tmp);
                return r;
        }
        return 0;
}

int state_file_read(StateFile **ret) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        size_t n;
        int r;

        r = host_path(STATE_FILE, &path);
        if (r < 0)
                return r;
        f = fopen(path, "re");
        if (!f)
                return -errno;
        text = malloc(1024 * 1024 + 1);
        if (!text)
                return -ENOMEM;
        n = fread(text, 1, 1024 * 1024, f);
        text[n] = '\0';
        return state_file_from_json(text, ret);
}
