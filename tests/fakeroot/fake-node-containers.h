/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* A container as CRI-O shows it on the node (fake-node-containers.c); part
 * of fake-node.h. */

#include <stdbool.h>
#include <sys/types.h>

typedef struct FakeNode FakeNode;

typedef struct FakeContainer {
        const char *id;        /* 64 hex digits */
        pid_t pid;             /* its init process (a real process in tests that follow it) */
        const char *namespace; /* io.kubernetes.pod.namespace; NULL: nvidia-network-operator */
        const char *name;      /* io.kubernetes.container.name; NULL: mofed-container */
        const char *capeff;    /* its init's CapEff (16 hex digits); NULL: 000001ffffffffff,
                                  a privileged container (CAP_SYS_MODULE is bit 16) */
        bool own_userns;       /* in a user namespace of its own, not the host's */
        const char *pod_uid;   /* io.kubernetes.pod.uid; NULL: one fixed uid (one pod) */
} FakeContainer;

/* proc/<pid>/cgroup in the container's crio-<id>.scope, proc/<pid>/status
 * (CapEff) and proc/<pid>/ns/user (a hard link of proc/1/ns/user, the host's
 * user namespace: one inode, unless own_userns), then CRI-O's store
 * entry run/containers/storage/overlay-containers/<id>/userdata/config.json
 * (OCI spec with the pod annotations) and its pidfile, each written
 * atomically and in that order, as a watcher of the store sees a container
 * start. Write the container's own files (its module tree) first. */
int fake_node_add_container(FakeNode *n, const FakeContainer *c);
