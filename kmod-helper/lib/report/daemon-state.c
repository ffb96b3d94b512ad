/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>

#include "host/host-root.h"
#include "report/daemon-state.h"
#include "util/fileio.h"
#include "util/json-util.h"
#include "util/macro.h"

int daemon_state_parse(const char *text, struct json_object **ret) {
        _cleanup_json_ json_object *o = json_tokener_parse(text);

        if (!o || !json_object_is_type(o, json_type_object))
                return -EBADMSG;
        *ret = TAKE_PTR(o);
        return 0;
}

int daemon_state_read(struct json_object **ret) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        int r;

        r = host_path(DAEMON_STATE_FILE, &path);
        if (r < 0)
                return r;
        r = read_regular_file(path, DAEMON_STATE_MAX_BYTES, &text, NULL);
        if (r == -ENOENT) {
                *ret = NULL;
                return 0;
        }
        if (r == -EFBIG)
                return -EBADMSG;
        if (r < 0)
                return r;
        return daemon_state_parse(text, ret);
}

int daemon_state_print(const struct json_object *state, FILE *f) {
        struct json_object *container, *pins, *notes;
        const char *message;

        if (!state) {
                fprintf(f, "Daemon: no %s: nvme-swapguard has not run since boot\n", DAEMON_STATE_FILE);
                return 0;
        }
        message = json_get_string(state, DAEMON_STATE_KEY_MESSAGE);
        fprintf(f, "Daemon: %s%s%s\n", json_get_string(state, DAEMON_STATE_KEY_STATE) ?: "unknown",
                message && *message ? ": " : "", message && *message ? message : "");
        if (json_object_object_get_ex(state, DAEMON_STATE_KEY_CONTAINER, &container))
                fprintf(f, "  driver container %s (pod %s)\n",
                        json_get_string(container, DAEMON_STATE_KEY_CONTAINER_ID) ?: "?",
                        json_get_string(container, DAEMON_STATE_KEY_CONTAINER_POD) ?: "?");
        if (json_object_object_get_ex(state, DAEMON_STATE_KEY_PINS, &pins) && json_object_is_type(pins, json_type_array))
                for (size_t i = 0; i < json_object_array_length(pins); i++) {
                        struct json_object *p = json_object_array_get_idx(pins, i);

                        if (json_object_is_type(p, json_type_string))
                                fprintf(f, "  %s\n", json_object_get_string(p));
                }
        /* Where the loaded build came from: the driver container and what it gave. */
        if (json_get_string(state, DAEMON_STATE_KEY_BUILD_CONTAINER))
                fprintf(f, "  loaded build from container %s\n", json_get_string(state, DAEMON_STATE_KEY_BUILD_CONTAINER));
        if (json_get_string(state, DAEMON_STATE_KEY_GDS))
                fprintf(f, "  GDS: %s\n", json_get_string(state, DAEMON_STATE_KEY_GDS));
        if (json_object_object_get_ex(state, DAEMON_STATE_KEY_CONTAINER_NOTES, &notes) &&
            json_object_is_type(notes, json_type_array))
                for (size_t i = 0; i < json_object_array_length(notes); i++) {
                        struct json_object *n = json_object_array_get_idx(notes, i);

                        if (json_object_is_type(n, json_type_string))
                                fprintf(f, "  container: %s\n", json_object_get_string(n));
                }
        return ferror(f) ? -EIO : 0;
}
