/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* CRI-O's container store, seen from the node without the Kubernetes API:
 * <store>/overlay-containers/<64 hex id>/userdata/{config.json,pidfile}.
 * The directory appears when a container is created and goes when it is
 * removed; inotify on overlay-containers/ sees both. config.json (the OCI
 * spec) carries the io.kubernetes.* annotations that say who it is. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "container/container-match.h"
#include "util/macro.h"

/* config.json of a real container is tens of KiB; anything past this is not
 * one, and must not make us allocate without bound. */
#define CONTAINER_CONFIG_MAX (16U * 1024U * 1024U)

/* Pure: parses config.json text. 0 with *ret; -EBADMSG when it is not JSON
 * or not an object, -ENODATA when an annotation we need is missing or not a
 * string, -ENOMEM. */
int container_config_parse(const char *id, const char *json, size_t len, ContainerIdentity **ret);
/* Reads and parses <path>; -EFBIG past CONTAINER_CONFIG_MAX, -errno from open. */
int container_config_read(const char *path, const char *id, ContainerIdentity **ret);
/* Reads a pidfile: 0 with *ret > 0; -EBADMSG when it holds no pid. */
int container_pidfile_read(const char *path, pid_t *ret);

/* One look, no watch: the newest started container named container_name (any
 * namespace) in the store, e.g. the GPU Operator's nvidia-fs-ctr whose root
 * holds nvidia-fs.ko. 0 with *ret_pid; -ENOENT when there is none. */
int container_store_find_running(const char *store_dir, const char *container_name, pid_t *ret_pid);

typedef struct ContainerStore ContainerStore;

typedef enum ContainerStoreEvent {
        CONTAINER_STORE_PID,      /* a wanted container has (a new) pid in its pidfile */
        CONTAINER_STORE_REMOVED,  /* a wanted container's directory is gone */
} ContainerStoreEvent;

/* Whether the store should follow this container (the matcher). */
typedef bool (*ContainerStoreWant)(const ContainerIdentity *c, void *userdata);
typedef void (*ContainerStoreHandler)(ContainerStore *s, ContainerStoreEvent ev, const ContainerIdentity *c,
                                      pid_t pid, void *userdata);

/* store_dir: CRI-O's runroot, already through host_path(). Scans what is
 * there and reports it through the handler before returning. */
int container_store_new(sd_event *e, const char *store_dir, ContainerStoreWant want, ContainerStoreHandler handler,
                        void *userdata, ContainerStore **ret);
ContainerStore *container_store_free(ContainerStore *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(ContainerStore *, container_store_free);
/* Forget everything and look again (after lost events). */
int container_store_rescan(ContainerStore *s);
