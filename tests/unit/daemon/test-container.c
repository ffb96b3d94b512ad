/* SPDX-License-Identifier: Apache-2.0 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "container/container-store.h"
#include "host/crio.h"
#include "util/strv.h"

#define ID "3f1c2a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170615e4d3"

/* The layout of a CRI-O config.json (OCI runtime spec), trimmed: the
 * annotations are at the top level, next to process, root, mounts. */
static const char real_config[] =
        "{\"ociVersion\":\"1.0.2-dev\",\"process\":{\"user\":{\"uid\":0,\"gid\":0},"
        "\"args\":[\"/root/entrypoint.sh\"],\"env\":[\"PATH=/usr/bin\",\"CREATE_IFNAMES_UDEV=true\"],"
        "\"cwd\":\"/\"},\"root\":{\"path\":\"/var/lib/containers/storage/overlay/abc/merged\"},"
        "\"hostname\":\"worker-0\",\"mounts\":[{\"destination\":\"/run/mellanox/drivers\",\"type\":\"bind\","
        "\"source\":\"/run/mellanox/drivers\",\"options\":[\"rbind\",\"rshared\"]}],"
        "\"annotations\":{\"io.container.manager\":\"cri-o\",\"io.kubernetes.container.hash\":\"5b1e0a1f\","
        "\"io.kubernetes.container.name\":\"mofed-container\","
        "\"io.kubernetes.cri-o.ContainerType\":\"container\","
        "\"io.kubernetes.cri-o.Labels\":\"{\\\"io.kubernetes.container.name\\\":\\\"mofed-container\\\"}\","
        "\"io.kubernetes.pod.name\":\"mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p\","
        "\"io.kubernetes.pod.namespace\":\"nvidia-network-operator\","
        "\"io.kubernetes.pod.uid\":\"0b7c3f5e-2a1d-4c8e-9f6a-1e2d3c4b5a69\"},"
        "\"linux\":{\"cgroupsPath\":\"kubepods-pod0b7c.slice:crio:" ID "\"}}\n";

static ContainerIdentity *parse(const char *json, int *r) {
        ContainerIdentity *c = NULL;

        *r = container_config_parse(ID, json, strlen(json), &c);
        return c;
}

Test(container, parses_real_annotation_layout) {
        int r;
        ContainerIdentity *c = parse(real_config, &r);

        cr_assert_eq(r, 0);
        cr_assert_str_eq(c->id, ID);
        cr_assert_str_eq(c->pod_namespace, "nvidia-network-operator");
        cr_assert_str_eq(c->pod_name, "mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p");
        cr_assert_str_eq(c->container_name, "mofed-container");
        cr_assert_str_eq(c->pod_uid, "0b7c3f5e-2a1d-4c8e-9f6a-1e2d3c4b5a69");
        cr_assert(container_match(c, "nvidia-network-operator", "mofed-container", "mofed-"));
        container_identity_free(c);
}

Test(container, matcher) {
        ContainerIdentity c = {
                .id = (char *) ID, .pod_namespace = (char *) "nvidia-network-operator",
                .pod_name = (char *) "mofed-ubuntu22.04-abc-ds-12345", .container_name = (char *) "mofed-container",
        };

        cr_assert(container_match(&c, "nvidia-network-operator", "mofed-container", "mofed-"));
        cr_assert(container_match(&c, "nvidia-network-operator", "mofed-container", ""), "empty prefix: any pod");
        cr_assert(container_match(&c, "nvidia-network-operator", "mofed-container", NULL));
        cr_assert_not(container_match(&c, "other-namespace", "mofed-container", "mofed-"));
        cr_assert_not(container_match(&c, "nvidia-network-operator", "openshift-driver-toolkit-ctr", "mofed-"),
                      "the sidecar is not the driver container");
        cr_assert_not(container_match(&c, "nvidia-network-operator", "mofed-container", "doca-"));
        c.pod_namespace = NULL;
        cr_assert_not(container_match(&c, "nvidia-network-operator", "mofed-container", NULL));
        cr_assert_not(container_match(NULL, "a", "b", NULL));
}

Test(container, malformed_json) {
        static const char *const bad[] = {
                "", "{", "not json", "[1,2,3]", "\"string\"", "{\"annotations\":",
                "{\"annotations\":{}} trailing", "{\"a\":1}{\"b\":2}", "null",
        };

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                int r;
                ContainerIdentity *c = parse(bad[i], &r);

                cr_expect_eq(r, -EBADMSG, "input %zu (%s): got %d", i, bad[i], r);
                cr_expect_null(c);
        }
}

Test(container, missing_or_wrong_fields) {
        static const char *const bad[] = {
                "{}",
                "{\"annotations\":[]}",
                "{\"annotations\":{\"io.kubernetes.pod.name\":\"p\",\"io.kubernetes.container.name\":\"c\"}}",
                "{\"annotations\":{\"io.kubernetes.pod.namespace\":\"n\",\"io.kubernetes.container.name\":\"c\"}}",
                "{\"annotations\":{\"io.kubernetes.pod.namespace\":\"n\",\"io.kubernetes.pod.name\":\"p\"}}",
                "{\"annotations\":{\"io.kubernetes.pod.namespace\":7,\"io.kubernetes.pod.name\":\"p\","
                "\"io.kubernetes.container.name\":\"c\"}}",
        };

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                int r;
                ContainerIdentity *c = parse(bad[i], &r);

                cr_expect_eq(r, -ENODATA, "input %zu: got %d", i, r);
                cr_expect_null(c);
        }
        /* The pod uid is optional. */
        int r;
        ContainerIdentity *c = parse("{\"annotations\":{\"io.kubernetes.pod.namespace\":\"n\","
                                     "\"io.kubernetes.pod.name\":\"p\",\"io.kubernetes.container.name\":\"c\"}}  \n",
                                     &r);
        cr_assert_eq(r, 0);
        cr_assert_null(c->pod_uid);
        container_identity_free(c);
}

Test(container, deep_nesting_is_rejected_not_a_crash) {
        size_t depth = 100000;
        char *s = malloc(depth * 2 + 1);
        int r;

        memset(s, '[', depth);
        memset(s + depth, ']', depth);
        s[depth * 2] = '\0';
        ContainerIdentity *c = parse(s, &r);
        cr_assert_eq(r, -EBADMSG);
        cr_assert_null(c);
        free(s);
}

Test(container, huge_file_is_refused_before_reading) {
        char path[] = "/tmp/test-daemon-container-XXXXXX";
        ContainerIdentity *c = NULL;
        int fd = mkstemp(path);

        cr_assert(fd >= 0);
        /* Sparse: costs no disk, but says 17 MiB. */
        cr_assert_eq(ftruncate(fd, CRIO_CONFIG_MAX + 1024 * 1024), 0);
        close(fd);
        cr_assert_eq(container_config_read(path, ID, &c), -EFBIG);
        cr_assert_null(c);
        cr_assert_eq(container_config_read("/nonexistent/config.json", ID, &c), -ENOENT);
        unlink(path);
}

Test(container, pidfile) {
        char path[] = "/tmp/test-daemon-pidfile-XXXXXX";
        pid_t pid = 0;
        int fd = mkstemp(path);
        FILE *f = fdopen(fd, "w");

        fputs("4242\n", f);
        fclose(f);
        cr_assert_eq(container_pidfile_read(path, &pid), 0);
        cr_assert_eq(pid, 4242);
        f = fopen(path, "w");
        fputs("12x", f);
        fclose(f);
        pid = 0;
        cr_assert_eq(container_pidfile_read(path, &pid), -EBADMSG);
        cr_assert_eq(pid, 0, "untouched on failure");
        f = fopen(path, "w");
        fputs("1", f);
        fclose(f);
        cr_assert_eq(container_pidfile_read(path, &pid), -EBADMSG, "pid 1 is never a container's");
        unlink(path);
}

Test(container, ids_and_scopes) {
        char id[65];

        cr_assert(crio_id_valid(ID));
        cr_assert_not(crio_id_valid("abc"));
        cr_assert_not(crio_id_valid(ID "0"));
        cr_assert_not(crio_id_valid("3F1C2A9B8E7D6C5B4A39281706F5E4D3C2B1A09F8E7D6C5B4A3928170615E4D3"));
        cr_assert(crio_id_from_scope("crio-" ID ".scope", id));
        cr_assert_str_eq(id, ID);
        cr_assert_not(crio_id_from_scope("crio-conmon-" ID ".scope", id));
        cr_assert_not(crio_id_from_scope("crio-" ID ".service", id));
        cr_assert_not(crio_id_from_scope("docker-" ID ".scope", id));
        cr_assert_not(crio_id_from_scope(NULL, id));
}

/* CRI-O's creation time and the container's environment. */
static const char created_config[] =
        "{\"process\":{\"env\":[\"PATH=/usr/bin\",\"ENABLE_NFSRDMA=true\",42,\"UNLOAD_STORAGE_MODULES=false\"]},"
        "\"annotations\":{\"io.kubernetes.container.name\":\"mofed-container\","
        "\"io.kubernetes.cri-o.Created\":\"2026-12-02T14:32:10.5Z\","
        "\"io.kubernetes.pod.name\":\"mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p\","
        "\"io.kubernetes.pod.namespace\":\"nvidia-network-operator\"}}";

Test(container, created_and_environment) {
        int r;
        ContainerIdentity *c = parse(created_config, &r), *copy;

        cr_assert_eq(r, 0);
        cr_assert_eq(c->created_usec, 1796221930ULL * 1000000ULL + 500000ULL);
        cr_assert_eq(strv_length(c->env), 3, "the non-string entry is skipped");
        cr_assert_str_eq(c->env[1], "ENABLE_NFSRDMA=true");
        copy = container_identity_copy(c);
        cr_assert_str_eq(copy->env[2], "UNLOAD_STORAGE_MODULES=false");
        cr_assert_eq(copy->created_usec, c->created_usec);
        container_identity_free(copy);
        container_identity_free(c);
        /* The older layout: no Created, no env: unknown, not an error. */
        c = parse(real_config, &r);
        cr_assert_eq(r, 0);
        cr_assert_eq(c->created_usec, 0);
        container_identity_free(c);
}

Test(container, newest_by_created) {
        ContainerIdentity old = { .created_usec = 100 }, new = { .created_usec = 200 }, unknown = { 0 };

        cr_assert(container_newer(&new, &old));
        cr_assert_not(container_newer(&old, &new));
        cr_assert(container_newer(&old, &unknown));
        cr_assert(container_newer(&old, NULL));
}

/* Kubelet's restart in the same pod is history, not a second driver. */
Test(container, restart_in_same_pod_is_not_a_conflict) {
        ContainerIdentity first = {
                .id = (char *) ID, .pod_namespace = (char *) "nvidia-network-operator",
                .pod_name = (char *) "mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p", .container_name = (char *) "mofed-container",
                .pod_uid = (char *) "0b7c3f5e-2a1d-4c8e-9f6a-1e2d3c4b5a69", .created_usec = 1000,
        };
        ContainerIdentity again = first, other = first;

        again.created_usec = 2000;
        cr_assert(container_same_pod(&first, &again));
        cr_assert(container_earlier_attempt(&first, &again));
        cr_assert_not(container_earlier_attempt(&again, &first), "the newer one is not the earlier attempt");
        cr_assert_not(container_pair_conflicts(&first, false, &again, true), "an exited attempt is history");
        cr_assert_not(container_pair_conflicts(&first, true, &again, true), "one pod never runs two attempts");

        /* A DaemonSet's new pod: new uid (and name). */
        other.pod_uid = (char *) "9d8c7b6a-5f4e-4d3c-8b2a-19f8e7d6c5b4";
        other.pod_name = (char *) "mofed-rhcos4.16-7d9f6b8c5d-ds-q8w2z";
        other.created_usec = 3000;
        cr_assert_not(container_same_pod(&first, &other));
        cr_assert_not(container_earlier_attempt(&first, &other));
        cr_assert(container_pair_conflicts(&first, true, &other, true), "two pods running: the warning stays");
        cr_assert_not(container_pair_conflicts(&first, false, &other, true), "the old pod's container exited");

        /* No uid on one side: namespace and pod name decide. */
        again.pod_uid = NULL;
        cr_assert(container_same_pod(&first, &again));
        other.pod_uid = NULL;
        cr_assert_not(container_same_pod(&first, &other));
        /* Unknown creation times: not an earlier attempt (cannot tell the order). */
        first.created_usec = 0;
        cr_assert_not(container_earlier_attempt(&first, &again));
        cr_assert_not(container_pair_conflicts(NULL, true, &again, true));
}
