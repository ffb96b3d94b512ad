/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* CRI-O's container store, seen from the node without the Kubernetes API:
 * <store>/overlay-containers/<64 hex id>/userdata/{config.json,pidfile}.
 * The directory appears when a container is created and goes when it is
 * removed; inotify on overlay-containers/ sees both, inotify on each
 * container's directory its files (reading them: container-config.h).
 *
 * What the store reports follows the store's content whatever the order in
 * which the kernel delivers, coalesces or drops (IN_Q_OVERFLOW) the events:
 * an event only names what to look at again, and what is on disk then
 * decides; lost events or a watch that cannot be had make it look at the
 * whole store again (container-store.c says why each step holds). */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "container/container-config.h"
#include "container/container-match.h"
#include "util/macro.h"

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
