/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The daemon's state file as the CLI shows it: `nvme-swapguard-kmod status`
 * tells an operator what the daemon is doing next to what the kernel says.
 * The daemon writes the file (daemon/state-file.c); this only reads it. */

#include <json-c/json.h>
#include <stdio.h>

#define DAEMON_STATE_DIR "/run/nvme-swapguard"
#define DAEMON_STATE_FILE DAEMON_STATE_DIR "/state.json"

/* Reads DAEMON_STATE_FILE through host-root. 0 with *ret = NULL when there is
 * no such file (the daemon has not run since boot); -EBADMSG when it is not
 * a JSON object; other -errno from reading. */
int daemon_state_read(struct json_object **ret);

/* One or two lines for the text status: state, message, container. */
int daemon_state_print(const struct json_object *state, FILE *f);
