/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Reading CRI-O's container store, <store>/overlay-containers/<64 hex
 * id>/userdata/{config.json,pidfile}: config.json (the OCI spec) carries the
 * io.kubernetes.* annotations that say who a container is (their names and
 * the file's layout: host/crio.h); the pidfile its init's pid. No watching
 * here (container-store.h). */

#include <stddef.h>
#include <sys/types.h>

#include "container/container-match.h"
#include "host/crio.h"

/* Pure: parses config.json text. 0 with *ret; -EBADMSG when it is not JSON
 * or not an object, -ENODATA when an annotation we need is missing or not a
 * string, -ENOMEM. */
int container_config_parse(const char *id, const char *json, size_t len, ContainerIdentity **ret);
/* Reads <path> and parses it in the parser child (sandbox/crio-config-job.h):
 * the identity holds only what passed the parent's checks, env only the keys
 * of driver_env_keys. -EFBIG past CRIO_CONFIG_MAX, -errno from open,
 * -EBADMSG/-ENODATA as container_config_parse(); the child's failures
 * (-ETIME, -EPROTO, -EPERM, -EMSGSIZE) with *ret_why (optional, static)
 * saying what happened. */
int container_config_read_full(const char *path, const char *id, ContainerIdentity **ret, const char **ret_why);
int container_config_read(const char *path, const char *id, ContainerIdentity **ret);
/* Reads a pidfile: 0 with *ret > 0; -EBADMSG when it holds no pid. */
int container_pidfile_read(const char *path, pid_t *ret);

/* The same two for a container of the store, opened through
 * crio_store_file_open() (in the daemon: by its privileged reader, the
 * store being root's 0700): containers_dir/<id>/userdata/config.json, and
 * .../pidfile. The same answers, -EINVAL for an id that is none, and what
 * the opener answers when it could not ask. */
int container_config_read_store(const char *containers_dir, const char *id, ContainerIdentity **ret,
                                const char **ret_why);
int container_pidfile_read_store(const char *containers_dir, const char *id, pid_t *ret);

/* One look, no watch: the newest started container named container_name (any
 * namespace) in the store, e.g. the GPU Operator's nvidia-fs-ctr whose root
 * holds nvidia-fs.ko. 0 with *ret_pid; -ENOENT when there is none. */
int container_store_find_running(const char *store_dir, const char *container_name, pid_t *ret_pid);
