/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "host/host-root.h"
#include "report/daemon-state.h"
#include "util/fileio.h"
#include "util/macro.h"

/* The daemon writes a few KiB; anything far larger is not its file. */
#define DAEMON_STATE_MAX_BYTES (1024 * 1024)

DEFINE_TRIVIAL_CLEANUP_FUNC(struct json_object *, json_object_put);

int daemon_state_read(struct json_object **ret) {
        _cleanup_(json_object_putp) struct json_object *o = NULL;
        _cleanup_free_ char *path = NULL;
        struct stat st;
        int r;

        r = host_path(DAEMON_STATE_FILE, &path);
        if (r < 0)
                return r;
        if (stat(path, &st) < 0) {
                if (errno != ENOENT)
                        return -errno;
                *ret = NULL;
                return 0;
        }
        if (!S_ISREG(st.st_mode) || st.st_size > DAEMON_STATE_MAX_BYTES)
                return -EBADMSG;
        o = json_object_from_file(path);
        if (!o || !json_object_is_type(o, json_type_object))
                return -EBADMSG;
        *ret = TAKE_PTR(o);
        return 0;
}

static const char *string_field(const struct json_object *o, const char *key) {
        struct json_object *v;

        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
                return NULL;
        return json_object_get_string(v);
}

int daemon_state_print(const struct json_object *state, FILE *f) {
        struct json_object *container;
        const char *message;

        if (!state) {
                fprintf(f, "Daemon: no %s: nvme-swapguard has not run since boot\n", DAEMON_STATE_FILE);
                return 0;
        }
        message = string_field(state, "message");
        fprintf(f, "Daemon: %s%s%s\n", string_field(state, "state") ?: "unknown",
                message && *message ? ": " : "", message && *message ? message : "");
        if (json_object_object_get_ex(state, "container", &container))
                fprintf(f, "  driver container %s (pod %s)\n", string_field(container, "id") ?: "?",
                        string_field(container, "pod") ?: "?");
        return ferror(f) ? -EIO : 0;
}
