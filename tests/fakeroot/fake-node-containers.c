/* SPDX-License-Identifier: Apache-2.0 */
/* A container as CRI-O shows it on the node (see fake-node-containers.h;
 * the layout is CRI-O's, as /work/shared/FIELD-NOTES.md section 5 describes:
 * the overlay-containers/<id>/userdata store entry and the crio-<id>.scope). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fake-node-private.h"

#define STORE "run/containers/storage/overlay-containers"

/* The OCI config.json of a driver container, as the daemon reads it: the
 * entrypoint and the pod annotations (names are test input, not escaped). */
static char *container_config(const FakeContainer *c) {
        char *s;

        if (asprintf(&s,
                     "{\"ociVersion\":\"1.0.2-dev\",\"process\":{\"args\":[\"/root/entrypoint.sh\"]},\n"
                     " \"annotations\":{\"io.kubernetes.container.name\":\"%s\",\n"
                     "  \"io.kubernetes.pod.name\":\"mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p\",\n"
                     "  \"io.kubernetes.pod.namespace\":\"%s\",\n"
                     "  \"io.kubernetes.pod.uid\":\"%s\"}}\n",
                     c->name ? c->name : "mofed-container",
                     c->namespace ? c->namespace : "nvidia-network-operator",
                     c->pod_uid ? c->pod_uid : "0b7c3f5e-2a1d-4c8e-9f6a-1e2d3c4b5a69") < 0)
                return NULL;
        return s;
}

/* What the daemon checks before it takes kernel code from the container
 * (daemon/container-privilege.c): CapEff in status, and whether ns/user is
 * the host's (the same inode as proc/1/ns/user). */
static int container_privilege(FakeNode *n, const FakeContainer *c) {
        _auto_free_ char *status = NULL, *host = fnode_rpath(n, "proc/1/ns/user"),
                         *ours = fnode_rpath(n, "proc/%d/ns/user", (int) c->pid),
                         *host_dir = fnode_rpath(n, "proc/1/ns"), *our_dir = fnode_rpath(n, "proc/%d/ns", (int) c->pid);
        int r;

        if (!host || !ours || !host_dir || !our_dir ||
            asprintf(&status, "Name:\tentrypoint\nCapEff:\t%s\n", c->capeff ? c->capeff : "000001ffffffffff") < 0)
                return -ENOMEM;
        if ((r = fnode_writef(n, status, "proc/%d/status", (int) c->pid)) < 0 || (r = fnode_mkdir_p(host_dir)) < 0 ||
            (r = fnode_mkdir_p(our_dir)) < 0)
                return r;
        if (!fnode_exists_rel(n, "proc/1/ns/user") && (r = fnode_write_file(host, "user:[4026531837]\n")) < 0)
                return r;
        (void) unlink(ours);
        if (c->own_userns)
                return fnode_write_file(ours, "user:[4026532512]\n");
        return link(host, ours) < 0 ? -errno : 0;
}

int fake_node_add_container(FakeNode *n, const FakeContainer *c) {
        _auto_free_ char *proc = NULL, *cgroup = NULL, *userdata = NULL, *config = NULL, *pid = NULL;
        int r;

        if (!c->id || !c->id[0] || c->pid <= 0)
                return -EINVAL;
        proc = fnode_rpath(n, "proc/%d", (int) c->pid);
        userdata = fnode_rpath(n, STORE "/%s/userdata", c->id);
        config = container_config(c);
        if (!proc || !userdata || !config ||
            asprintf(&cgroup, "0::/kubepods.slice/kubepods-pod1.slice/crio-%s.scope\n", c->id) < 0 ||
            asprintf(&pid, "%d\n", (int) c->pid) < 0)
                return -ENOMEM;
        if ((r = fnode_mkdir_p(proc)) < 0 || (r = fnode_mkdir_p(userdata)) < 0)
                return r;
        if ((r = fnode_writef(n, cgroup, "proc/%d/cgroup", (int) c->pid)) < 0 || (r = container_privilege(n, c)) < 0 ||
            (r = fnode_writef(n, config, STORE "/%s/userdata/config.json", c->id)) < 0)
                return r;
        return fnode_writef(n, pid, STORE "/%s/userdata/pidfile", c->id);
}
