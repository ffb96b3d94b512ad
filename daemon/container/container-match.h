/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Who a container is, from its OCI config.json annotations, and whether it
 * is the driver container we wait for. Pure: no I/O. Pod labels are only on
 * the sandbox, so we match on namespace + container name (+ pod name prefix). */

#include <stdbool.h>
#include <stdint.h>

#include "util/macro.h"

typedef struct ContainerIdentity {
        char *id;             /* 64 hex: the overlay-containers/ directory name */
        char *pod_namespace;  /* io.kubernetes.pod.namespace */
        char *pod_name;       /* io.kubernetes.pod.name */
        char *container_name; /* io.kubernetes.container.name */
        char *pod_uid;        /* io.kubernetes.pod.uid; NULL when absent */
        uint64_t created_usec; /* io.kubernetes.cri-o.Created, else the store directory's
                                  mtime; 0 when unknown */
        char **env;           /* process.env ("KEY=value"), NULL-terminated; NULL when absent */
} ContainerIdentity;

ContainerIdentity *container_identity_free(ContainerIdentity *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(ContainerIdentity *, container_identity_free);
/* A deep copy; NULL on ENOMEM. */
ContainerIdentity *container_identity_copy(const ContainerIdentity *c);
/* Which of two containers is newer by creation time (a wins ties and unknowns
 * only when b's time is unknown too): the one to follow when pods overlap. */
bool container_newer(const ContainerIdentity *a, const ContainerIdentity *b);

/* Whether a and b run in the same pod: the same io.kubernetes.pod.uid, or,
 * when either lacks one, the same namespace and pod name (a restart keeps
 * both; a DaemonSet's new pod gets a new name and uid). */
bool container_same_pod(const ContainerIdentity *a, const ContainerIdentity *b);
/* Whether older is an earlier attempt of newer in the same pod: kubelet
 * restarted the container (a crash, a failed start) in the pod it had, as a
 * new container with a new id and a later Created. Both times must be known. */
bool container_earlier_attempt(const ContainerIdentity *older, const ContainerIdentity *newer);
/* Whether two matching privileged containers are worth a warning: both run,
 * from different pods (an overlap the operator should know about: which one
 * gives the build is then a race). An exited container is history, and so
 * is an earlier attempt in the same pod, which kubelet only garbage-collects
 * later; two attempts of one pod never run at once. */
bool container_pair_conflicts(const ContainerIdentity *a, bool a_running, const ContainerIdentity *b,
                              bool b_running);

/* pod_name_prefix NULL or "" matches any pod name. */
bool container_match(const ContainerIdentity *c, const char *pod_namespace, const char *container_name,
                     const char *pod_name_prefix);
