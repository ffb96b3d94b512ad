/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Which CRI-O container a process belongs to, seen from the node: CRI-O
 * (systemd cgroup manager, as on OpenShift) puts a container's processes
 * in a unit crio-<64 hex id>.scope, which /proc/<pid>/cgroup names
 * ("0::/kubepods.slice/.../crio-<id>.scope"); the container's OCI spec,
 * <store>/overlay-containers/<id>/userdata/config.json, carries who it is
 * in its annotations (io.kubernetes.pod.namespace, io.kubernetes.pod.name,
 * io.kubernetes.container.name). FIELD-NOTES section 5. The daemon reads
 * the same store for its own purpose (daemon/container/); the library has
 * this small reader so that it never depends on the daemon. */

#include <stdbool.h>
#include <sys/types.h>

#include "util/macro.h"

/* CRI-O's runroot on OpenShift (the daemon's ContainerStore= default). */
#define PROCESS_CONTAINER_STORE "/run/containers/storage"

typedef struct ProcessContainer {
        char id[65];          /* 64 hex */
        char *pod_namespace;  /* NULL when config.json could not be read */
        char *pod_name;
        char *container_name;
} ProcessContainer;

/* Pure: the container id of the crio-<id>.scope that a /proc/<pid>/cgroup
 * text names (any hierarchy line; conmon's crio-conmon-<id>.scope is not the
 * container). True with ret filled, false when none. */
bool process_container_id_from_cgroup(const char *cgroup_text, char ret[static 65]);

/* Pure: the annotations of a config.json text. 0, -EBADMSG when it is not
 * a JSON object with an "annotations" object, -ENOMEM. Missing annotations
 * stay NULL. */
int process_container_parse_config(const char *json, ProcessContainer *c);

/* pid's container under the host root: 1 with *ret (its identity as far as
 * config.json could be read), 0 when the process is in no CRI-O container
 * (or is gone), -ENOMEM. */
int process_container_read(pid_t pid, ProcessContainer **ret);
ProcessContainer *process_container_free(ProcessContainer *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(ProcessContainer *, process_container_free);
