/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host-root.h"
#include "usage/process-container.h"
#include "util/fileio.h"
#include "util/json-util.h"
#include "util/macro.h"

/* config.json of a real container is tens of KiB (the daemon's bound too). */
#define CONFIG_MAX (16U * 1024U * 1024U)

static bool is_hex64(const char *s, size_t n) {
        if (n != 64)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                        return false;
        return true;
}

/* One path component "crio-<64 hex>.scope". */
static bool component_is_scope(const char *c, size_t n, char ret[static 65]) {
        const size_t prefix = 5, suffix = 6; /* "crio-", ".scope" */

        if (n != prefix + 64 + suffix || !strneq(c, "crio-", prefix) || !strneq(c + n - suffix, ".scope", suffix) ||
            !is_hex64(c + prefix, 64))
                return false;
        memcpy(ret, c + prefix, 64);
        ret[64] = '\0';
        return true;
}

bool process_container_id_from_cgroup(const char *cgroup_text, char ret[static 65]) {
        const char *p = cgroup_text;

        while (p && *p) {
                const char *eol = strchrnul(p, '\n'), *path = memchr(p, '/', (size_t) (eol - p));

                /* "<id>:<controllers>:<path>": the components of the path. */
                while (path && path < eol) {
                        const char *c = path + 1, *end = c;

                        while (end < eol && *end != '/')
                                end++;
                        if (component_is_scope(c, (size_t) (end - c), ret))
                                return true;
                        path = end < eol ? end : NULL;
                }
                p = *eol ? eol + 1 : NULL;
        }
        return false;
}

static int dup_annotation(json_object *annotations, const char *key, char **ret) {
        const char *v = json_get_string(annotations, key);

        *ret = v ? strdup(v) : NULL;
        return !v || *ret ? 0 : -ENOMEM;
}

int process_container_parse_config(const char *json, ProcessContainer *c) {
        _cleanup_json_ json_object *root = json_tokener_parse(json);
        json_object *annotations = NULL;
        int r;

        if (!root || !json_object_is_type(root, json_type_object) ||
            !json_object_object_get_ex(root, "annotations", &annotations) ||
            !json_object_is_type(annotations, json_type_object))
                return -EBADMSG;
        if ((r = dup_annotation(annotations, "io.kubernetes.pod.namespace", &c->pod_namespace)) < 0 ||
            (r = dup_annotation(annotations, "io.kubernetes.pod.name", &c->pod_name)) < 0 ||
            (r = dup_annotation(annotations, "io.kubernetes.container.name", &c->container_name)) < 0)
                return r;
        return 0;
}

ProcessContainer *process_container_free(ProcessContainer *c) {
        if (!c)
                return NULL;
        free(c->pod_namespace);
        free(c->pod_name);
        free(c->container_name);
        free(c);
        return NULL;
}

/* The identity from the store; a config we cannot read or parse leaves the
 * id alone (still worth naming: crictl inspect finds it). */
static int read_config(ProcessContainer *c) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        int r;

        if (host_pathf(&path, "%s/overlay-containers/%s/userdata/config.json", PROCESS_CONTAINER_STORE, c->id) < 0)
                return -ENOMEM;
        r = read_regular_file(path, CONFIG_MAX, &text, NULL);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        r = process_container_parse_config(text, c);
        return r == -ENOMEM ? r : 0;
}

int process_container_read(pid_t pid, ProcessContainer **ret) {
        _cleanup_(process_container_freep) ProcessContainer *c = NULL;
        _cleanup_free_ char *path = NULL, *text = NULL;
        char id[65];
        int r;

        if (host_pathf(&path, "/proc/%d/cgroup", (int) pid) < 0)
                return -ENOMEM;
        r = read_full_file(path, &text, NULL); /* procfs: size 0 in stat, read to EOF */
        if (r == -ENOMEM)
                return r;
        if (r < 0 || !process_container_id_from_cgroup(text, id))
                return 0; /* gone, unreadable, or not a container's */
        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        memcpy(c->id, id, sizeof(id));
        r = read_config(c);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(c);
        return 1;
}
