/* SPDX-License-Identifier: Apache-2.0 */
/* The fabrics record on disk: /run/nvme-swapguard/fabrics.json (see
 * fabrics-record.h; its JSON is fabrics-json.c, the secrets file
 * fabrics-secrets.c). */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host-root.h"
#include "nvme/fabrics-record.h"
#include "nvme/fabrics-secrets.h"
#include "util/fileio.h"
#include "util/json-util.h"

/* A record is a few KB per connection; anything far larger is not ours. */
#define FABRICS_RECORD_MAX (4u * 1024u * 1024u)

static int make_parent(const char *path) {
        _cleanup_free_ char *dir = strdup(path);
        char *slash = dir ? strrchr(dir, '/') : NULL;

        if (!dir)
                return -ENOMEM;
        if (!slash || slash == dir)
                return 0;
        *slash = '\0';
        return mkdir(dir, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

static int record_text(const FabricsTopology *t, char **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *controllers;
        int r;

        if (!o)
                return -ENOMEM;
        if ((r = json_add_new(o, "version", json_object_new_int(FABRICS_RECORD_VERSION))) < 0 ||
            (r = fabrics_topology_to_json(t, &controllers)) < 0 || (r = json_add(o, "controllers", controllers)) < 0)
                return r;
        return json_to_text(o, ret);
}

int fabrics_record_save(const FabricsTopology *t) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        int r;

        if (!t || t->n_controllers == 0)
                return fabrics_record_remove();
        r = host_path(FABRICS_RECORD_PATH, &path);
        if (r < 0)
                return r;
        if ((r = make_parent(path)) < 0 || (r = record_text(t, &text)) < 0)
                return r;
        /* Secrets first: a record is never on disk without the secrets it
         * needs; a failed record write takes them away again. */
        r = fabrics_secrets_save(t);
        if (r < 0)
                return r;
        r = write_file_atomic(path, text, 0644);
        if (r < 0)
                (void) fabrics_secrets_remove();
        return r;
}

int fabrics_record_load(FabricsTopology **ret, char **ret_error) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        int r;

        r = host_path(FABRICS_RECORD_PATH, &path);
        if (r < 0)
                return r;
        r = read_regular_file(path, FABRICS_RECORD_MAX, &text, NULL);
        if (r == -ENOENT)
                return r;
        if (r < 0) {
                if (ret_error && asprintf(ret_error, "%s: %s", path, strerror(-r)) < 0)
                        *ret_error = NULL;
                return r;
        }
        return fabrics_record_parse(text, path, ret, ret_error);
}

int fabrics_record_exists(void) {
        _cleanup_free_ char *path = NULL;
        int r = host_path(FABRICS_RECORD_PATH, &path);

        return r < 0 ? r : path_exists(path);
}

int fabrics_record_remove(void) {
        _cleanup_free_ char *path = NULL;
        int r = host_path(FABRICS_RECORD_PATH, &path);

        if (r < 0)
                return r;
        if (unlink(path) < 0 && errno != ENOENT)
                return -errno;
        return fabrics_secrets_remove();
}
