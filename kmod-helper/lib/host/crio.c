/* SPDX-License-Identifier: Apache-2.0 */
#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/crio.h"
#include "util/json-util.h"
#include "util/macro.h"
#include "util/strv.h"

#define SCOPE_PREFIX "crio-"
#define SCOPE_SUFFIX ".scope"

static bool is_hex64(const char *s, size_t n) {
        if (n != 64)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                        return false;
        return true;
}

bool crio_id_valid(const char *id) {
        return id && is_hex64(id, strlen(id));
}

/* One name "crio-<64 hex>.scope" of n bytes (not necessarily terminated). */
static bool scope_id(const char *c, size_t n, char ret[static 65]) {
        const size_t prefix = strlen(SCOPE_PREFIX), suffix = strlen(SCOPE_SUFFIX);

        if (n != prefix + 64 + suffix || !strneq(c, SCOPE_PREFIX, prefix) ||
            !strneq(c + n - suffix, SCOPE_SUFFIX, suffix) || !is_hex64(c + prefix, 64))
                return false;
        memcpy(ret, c + prefix, 64);
        ret[64] = '\0';
        return true;
}

bool crio_id_from_scope(const char *unit, char ret[static 65]) {
        return unit && scope_id(unit, strlen(unit), ret);
}

bool crio_id_from_cgroup(const char *cgroup_text, char ret[static 65]) {
        const char *p = cgroup_text;

        while (p && *p) {
                const char *eol = strchrnul(p, '\n'), *path = memchr(p, '/', (size_t) (eol - p));

                /* "<id>:<controllers>:<path>": the components of the path. */
                while (path && path < eol) {
                        const char *c = path + 1, *end = c;

                        while (end < eol && *end != '/')
                                end++;
                        if (scope_id(c, (size_t) (end - c), ret))
                                return true;
                        path = end < eol ? end : NULL;
                }
                p = *eol ? eol + 1 : NULL;
        }
        return false;
}

int crio_containers_dir(const char *store, char **ret) {
        return asprintf(ret, "%s/overlay-containers", store) < 0 ? -ENOMEM : 0;
}

int crio_userdata_file(const char *containers_dir, const char *id, const char *file, char **ret) {
        return asprintf(ret, "%s/%s/userdata/%s", containers_dir, id, file) < 0 ? -ENOMEM : 0;
}

/* CRI-O's default runtime_root for runc and crun. */
static const char *const runtime_roots[] = { "/run/runc", "/run/crun" };

const char *crio_runtime_root(size_t i) {
        return i < ELEMENTSOF(runtime_roots) ? runtime_roots[i] : NULL;
}

static bool only(const char *s, size_t max, const char *chars) {
        size_t n = s ? strlen(s) : 0;

        return n >= 1 && n <= max && strspn(s, chars) == n;
}

static bool alnum_ends(const char *s) {
        size_t n = strlen(s);

        return isalnum((unsigned char) s[0]) && isalnum((unsigned char) s[n - 1]);
}

bool crio_k8s_label_valid(const char *s) {
        return only(s, 63, "abcdefghijklmnopqrstuvwxyz0123456789-") && alnum_ends(s);
}

bool crio_k8s_subdomain_valid(const char *s) {
        return only(s, 253, "abcdefghijklmnopqrstuvwxyz0123456789-.") && alnum_ends(s);
}

bool crio_pod_uid_valid(const char *s) {
        return only(s, 64, "0123456789abcdefABCDEF-");
}

bool crio_created_valid(const char *s) {
        return only(s, 64, "0123456789TZtz:.+-");
}

CrioConfig *crio_config_free(CrioConfig *c) {
        if (!c)
                return NULL;
        free(c->pod_namespace);
        free(c->pod_name);
        free(c->container_name);
        free(c->pod_uid);
        free(c->created);
        strv_free(c->env);
        free(c);
        return NULL;
}

static int dup_annotation(json_object *annotations, const char *key, char **ret) {
        const char *v = json_get_string(annotations, key);

        *ret = v ? strdup(v) : NULL;
        return !v || *ret ? 0 : -ENOMEM;
}

/* Length of the trailing whitespace: allowed after the document. */
static size_t strspn_tail(const char *s, size_t len) {
        size_t n = 0;

        while (n < len && strchr(" \t\r\n", s[len - 1 - n]) && s[len - 1 - n] != '\0')
                n++;
        return n;
}

/* process.env: the strings only; anything else in the array is not ours to judge. */
static int process_env(json_object *root, char ***ret) {
        json_object *process = NULL, *env = NULL;
        char **l = NULL;

        *ret = NULL;
        if (!json_object_object_get_ex(root, "process", &process) || !json_object_is_type(process, json_type_object) ||
            !json_object_object_get_ex(process, "env", &env) || !json_object_is_type(env, json_type_array))
                return 0;
        for (size_t i = 0; i < json_object_array_length(env); i++) {
                json_object *v = json_object_array_get_idx(env, i);

                if (!json_object_is_type(v, json_type_string))
                        continue;
                if (strv_extend(&l, json_object_get_string(v)) < 0) {
                        strv_free(l);
                        return -ENOMEM;
                }
        }
        *ret = l;
        return 0;
}

/* The document, whole: a truncated one (a half-written file) or trailing
 * garbage is not a config. json-c 0.14 (RHEL 9) has no
 * json_tokener_get_parse_end(): char_offset is its spelling there. */
static int parse_whole(const char *json, size_t len, json_object **ret) {
        json_tokener *tok = json_tokener_new();
        json_object *root;
        bool whole;

        if (!tok)
                return -ENOMEM;
        root = json_tokener_parse_ex(tok, json, (int) len);
        whole = root && json_tokener_get_error(tok) == json_tokener_success && tok->char_offset >= 0 &&
                (size_t) tok->char_offset >= len - strspn_tail(json, len);
        json_tokener_free(tok);
        if (!whole) {
                json_object_put(root);
                return -EBADMSG;
        }
        *ret = root;
        return 0;
}

int crio_config_parse(const char *json, size_t len, CrioConfig **ret) {
        _cleanup_json_ json_object *root = NULL;
        _cleanup_(crio_config_freep) CrioConfig *c = NULL;
        json_object *annotations = NULL;
        int r;

        if (len > CRIO_CONFIG_MAX || len > INT32_MAX)
                return -EFBIG;
        r = parse_whole(json, len, &root);
        if (r < 0)
                return r;
        if (!json_object_is_type(root, json_type_object))
                return -EBADMSG;
        if (!json_object_object_get_ex(root, "annotations", &annotations) ||
            !json_object_is_type(annotations, json_type_object))
                return -ENODATA;

        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        if ((r = dup_annotation(annotations, "io.kubernetes.pod.namespace", &c->pod_namespace)) < 0 ||
            (r = dup_annotation(annotations, "io.kubernetes.pod.name", &c->pod_name)) < 0 ||
            (r = dup_annotation(annotations, "io.kubernetes.container.name", &c->container_name)) < 0 ||
            (r = dup_annotation(annotations, "io.kubernetes.pod.uid", &c->pod_uid)) < 0 ||
            (r = dup_annotation(annotations, "io.kubernetes.cri-o.Created", &c->created)) < 0 ||
            (r = process_env(root, &c->env)) < 0)
                return r;
        *ret = TAKE_PTR(c);
        return 0;
}
