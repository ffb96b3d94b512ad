/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* CRI-O's view of a container, as the node shows it (FIELD-NOTES section 5):
 * the one place that knows CRI-O's names, read by the usage scan and the
 * daemon alike.
 *
 *  - the store: <store>/overlay-containers/<64 hex id>/userdata/{config.json,
 *    pidfile}; the store is CRI-O's runroot, from the daemon's configuration
 *    (ContainerStore=), CRIO_STORE_DEFAULT when none is given;
 *  - config.json (the OCI spec): the io.kubernetes.* annotations that say
 *    who the container is, and process.env;
 *  - the cgroup: with the systemd cgroup manager (OpenShift) a container's
 *    processes are in the unit crio-<id>.scope, which /proc/<pid>/cgroup
 *    names ("0::/kubepods.slice/.../crio-<id>.scope");
 *  - the OCI runtimes' state roots, where runc and crun keep a created
 *    container's exec.fifo until its start.
 *
 * Pure: no I/O here; the callers read the files (through host_path()). */

#include <stdbool.h>
#include <stddef.h>

#include "util/macro.h"

/* CRI-O's runroot on OpenShift: the default of ContainerStore=. */
#define CRIO_STORE_DEFAULT "/run/containers/storage"
/* The units CRI-O's containers run in, as a systemd unit name pattern. */
#define CRIO_SCOPE_PATTERN "crio-*.scope"
/* config.json of a real container is tens of KiB; anything past this is not
 * one, and must not make us allocate without bound. */
#define CRIO_CONFIG_MAX (16U * 1024U * 1024U)
#define CRIO_CONFIG_FILE "config.json"
#define CRIO_PIDFILE "pidfile"

/* "<64 lowercase hex>": a container id, as the store's directory names it. */
bool crio_id_valid(const char *id);
/* If unit is "crio-<id>.scope", copies the id into ret and returns true
 * (conmon's crio-conmon-<id>.scope is not the container). */
bool crio_id_from_scope(const char *unit, char ret[static 65]);
/* The container id of the crio-<id>.scope that a /proc/<pid>/cgroup text
 * names in any hierarchy line's path. True with ret filled, false when none. */
bool crio_id_from_cgroup(const char *cgroup_text, char ret[static 65]);

/* <store>/overlay-containers: where each container has its directory. */
int crio_containers_dir(const char *store, char **ret);
/* <containers_dir>/<id>/userdata/<file>. */
int crio_userdata_file(const char *containers_dir, const char *id, const char *file, char **ret);

/* The i-th OCI runtime state root CRI-O uses by default (its runtime_root
 * for runc and crun), NULL past the last: runc and crun keep exec.fifo in
 * <root>/<id>/ from the container's create until its start. */
const char *crio_runtime_root(size_t i);

/* What Kubernetes accepts, and so what a real config.json holds: the
 * parent side of the parser child checks every name it is handed with
 * these (and the child leaves out an optional field that fails them). */
/* A DNS-1123 label (namespace, container name): 1..63 of [a-z0-9-],
 * alphanumeric at both ends. */
bool crio_k8s_label_valid(const char *s);
/* A DNS-1123 subdomain (pod name): 1..253 of [a-z0-9.-], alphanumeric at
 * both ends. */
bool crio_k8s_subdomain_valid(const char *s);
/* A pod uid: a UUID, or a static pod's hash: 1..64 of [0-9a-fA-F-]. */
bool crio_pod_uid_valid(const char *s);
/* CRI-O's Created annotation, RFC 3339: 1..64 of [0-9TZtz:.+-]. */
bool crio_created_valid(const char *s);

/* What config.json says about its container. Each annotation is NULL when
 * it is absent or not a string. */
typedef struct CrioConfig {
        char *pod_namespace;  /* io.kubernetes.pod.namespace */
        char *pod_name;       /* io.kubernetes.pod.name */
        char *container_name; /* io.kubernetes.container.name */
        char *pod_uid;        /* io.kubernetes.pod.uid */
        char *created;        /* io.kubernetes.cri-o.Created (RFC 3339, as CRI-O wrote it) */
        char **env;           /* process.env's strings, NULL-terminated; NULL when absent */
} CrioConfig;

/* Parses config.json text of len bytes. 0 with *ret; -EFBIG past
 * CRIO_CONFIG_MAX; -EBADMSG when it is not one JSON object (a half-written
 * file, trailing garbage); -ENODATA when it has no "annotations" object;
 * -ENOMEM. */
int crio_config_parse(const char *json, size_t len, CrioConfig **ret);
CrioConfig *crio_config_free(CrioConfig *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(CrioConfig *, crio_config_free);
