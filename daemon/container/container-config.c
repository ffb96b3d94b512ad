/* SPDX-License-Identifier: Apache-2.0 */
/* Reading CRI-O's container store: a container's config.json and pidfile,
 * and one look for a running container by name (no watch). Split out of
 * container-store.c, which keeps the watching. */
#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container/container-config.h"
#include "container/container-started.h"
#include "container/container-time.h"
#include "util/fileio.h"
#include "util/json-util.h"
#include "util/macro.h"
#include "util/strv.h"

static int annotation(json_object *annotations, const char *key, bool required, char **ret) {
        json_object *v = NULL;

        if (!json_object_object_get_ex(annotations, key, &v) || !json_object_is_type(v, json_type_string)) {
                if (required)
                        return -ENODATA;
                *ret = NULL;
                return 0;
        }
        *ret = strdup(json_object_get_string(v));
        return *ret ? 0 : -ENOMEM;
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

/* CRI-O's creation time; an unparsable one is unknown (0), not an error. */
static int created_annotation(json_object *annotations, uint64_t *ret) {
        _cleanup_free_ char *created = NULL;
        int r;

        *ret = 0;
        r = annotation(annotations, "io.kubernetes.cri-o.Created", false, &created);
        if (r < 0)
                return r;
        if (created && rfc3339_parse_usec(created, ret) < 0)
                *ret = 0;
        return 0;
}

int container_config_parse(const char *id, const char *json, size_t len, ContainerIdentity **ret) {
        _cleanup_json_ json_object *root = NULL;
        _cleanup_(container_identity_freep) ContainerIdentity *c = NULL;
        json_tokener *tok;
        json_object *annotations = NULL;
        int r;

        if (len > CONTAINER_CONFIG_MAX || len > INT32_MAX)
                return -EFBIG;
        tok = json_tokener_new();
        if (!tok)
                return -ENOMEM;
        root = json_tokener_parse_ex(tok, json, (int) len);
        /* A truncated document (a half-written file) or trailing garbage is not
         * a config. json-c 0.14 (RHEL 9) has no json_tokener_get_parse_end():
         * char_offset is its spelling there. */
        if (!root || json_tokener_get_error(tok) != json_tokener_success ||
            tok->char_offset < 0 || (size_t) tok->char_offset < len - strspn_tail(json, len)) {
                json_tokener_free(tok);
                return -EBADMSG;
        }
        json_tokener_free(tok);
        if (!json_object_is_type(root, json_type_object))
                return -EBADMSG;
        if (!json_object_object_get_ex(root, "annotations", &annotations) ||
            !json_object_is_type(annotations, json_type_object))
                return -ENODATA;

        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->id = strdup(id ?: "");
        if (!c->id)
                return -ENOMEM;
        r = annotation(annotations, "io.kubernetes.pod.namespace", true, &c->pod_namespace);
        if (r >= 0)
                r = annotation(annotations, "io.kubernetes.pod.name", true, &c->pod_name);
        if (r >= 0)
                r = annotation(annotations, "io.kubernetes.container.name", true, &c->container_name);
        if (r >= 0)
                r = annotation(annotations, "io.kubernetes.pod.uid", false, &c->pod_uid);
        if (r >= 0)
                r = created_annotation(annotations, &c->created_usec);
        if (r >= 0)
                r = process_env(root, &c->env);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(c);
        return 0;
}

int container_config_read(const char *path, const char *id, ContainerIdentity **ret) {
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r;

        r = read_regular_file(path, CONTAINER_CONFIG_MAX, &text, &len);
        if (r < 0)
                return r;
        return container_config_parse(id, text, len, ret);
}

int container_pidfile_read(const char *path, pid_t *ret) {
        _cleanup_free_ char *text = NULL;
        char *end = NULL;
        size_t len;
        long v;
        int r;

        r = read_regular_file(path, 64, &text, &len);
        if (r < 0)
                return r == -EFBIG ? -EBADMSG : r;
        errno = 0;
        v = strtol(text, &end, 10);
        if (errno || end == text || v <= 1 || v > INT32_MAX || (*end && *end != '\n'))
                return -EBADMSG;
        *ret = (pid_t) v;
        return 0;
}

int container_store_find_running(const char *store_dir, const char *container_name, pid_t *ret_pid) {
        _cleanup_free_ char *dir = NULL;
        _cleanup_(closedirp) DIR *d = NULL;
        uint64_t best_created = 0;
        pid_t best = 0;
        struct dirent *de;

        if (asprintf(&dir, "%s/overlay-containers", store_dir) < 0)
                return -ENOMEM;
        d = opendir(dir);
        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                _cleanup_free_ char *config = NULL, *pidfile = NULL;
                _cleanup_(container_identity_freep) ContainerIdentity *c = NULL;
                pid_t pid;

                if (!container_id_valid(de->d_name))
                        continue;
                if (asprintf(&config, "%s/%s/userdata/config.json", dir, de->d_name) < 0 ||
                    asprintf(&pidfile, "%s/%s/userdata/pidfile", dir, de->d_name) < 0)
                        return -ENOMEM;
                if (container_config_read(config, de->d_name, &c) < 0 || !streq(c->container_name, container_name))
                        continue;
                if (container_pidfile_read(pidfile, &pid) < 0 ||
                    container_process_state(pid, de->d_name, NULL) != CONTAINER_PROCESS_STARTED)
                        continue;
                if (!best || c->created_usec > best_created) {
                        best = pid;
                        best_created = c->created_usec;
                }
        }
        if (!best)
                return -ENOENT;
        *ret_pid = best;
        return 0;
}
