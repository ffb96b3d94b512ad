/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Which CRI-O container a process belongs to, seen from the node: the
 * crio-<id>.scope its /proc/<pid>/cgroup names, and who that container is
 * from the annotations of its config.json in CRI-O's default store (what
 * those names and paths are: host/crio.h). */

#include <stdbool.h>
#include <sys/types.h>

#include "util/macro.h"

typedef struct ProcessContainer {
        char id[65];          /* 64 hex */
        char *pod_namespace;  /* NULL when config.json could not be read */
        char *pod_name;
        char *container_name;
} ProcessContainer;

/* Pure: the annotations of a config.json text. 0, -EBADMSG when it is not
 * one JSON object with an "annotations" object, -ENOMEM. Missing annotations
 * stay NULL. */
int process_container_parse_config(const char *json, ProcessContainer *c);

/* pid's container under the host root: 1 with *ret (its identity as far as
 * config.json could be read), 0 when the process is in no CRI-O container
 * (or is gone), -ENOMEM. */
int process_container_read(pid_t pid, ProcessContainer **ret);
ProcessContainer *process_container_free(ProcessContainer *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(ProcessContainer *, process_container_free);
