/* SPDX-License-Identifier: Apache-2.0 */
/* The usage check in every mount namespace: a fake root with
 * several namespaces (/proc/<pid>/ns/mnt links with distinct mnt:[inode]
 * targets, as the kernel's ns links read), a mountinfo per pid, cgroup
 * files naming CRI-O scopes, and a container's config.json in the store. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake-tree.h"
#include "host/crio.h"
#include "host/host-root.h"
#include "report/report-json.h"
#include "util/json-util.h"
#include "nvme-fixtures.h"
#include "usage/mount-namespace-set.h"
#include "usage/mount-namespaces.h"
#include "usage/process-container.h"
#include "usage/usage-check.h"
#include "util/strv.h"

#define HOST_NS 4026531841ULL
#define ID "3f1c2a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170615e4d3"

static void setup(void) {
        fake_tree_new();
        fixture_plain_namespace();
        fixture_multipath_head();
        fake_write("dev/nvme0n1", "");
        fake_write("dev/nvme0n1p1", "");
        fake_write("dev/nvme1n1", "");
        fake_write("proc/swaps", "Filename Type Size Used Priority\n");
        fake_write("proc/1/mountinfo", "22 1 0:21 / /proc rw - proc proc rw\n");
}

static void teardown(void) {
        fake_tree_remove();
}

TestSuite(mount_namespaces, .init = setup, .fini = teardown);

/* A process: its namespace link, its command, optionally its cgroup. */
static void process(int pid, uint64_t ns, const char *comm, const char *cgroup) {
        char rel[128], target[64];

        snprintf(rel, sizeof(rel), "proc/%d/ns/mnt", pid);
        snprintf(target, sizeof(target), "mnt:[%" PRIu64 "]", ns);
        fake_symlink(rel, target);
        snprintf(rel, sizeof(rel), "proc/%d/comm", pid);
        fake_writef(rel, "%s\n", comm);
        snprintf(rel, sizeof(rel), "proc/%d/cgroup", pid);
        fake_write(rel, cgroup ? cgroup : "0::/system.slice/some.service\n");
}

static void mountinfo(int pid, const char *text) {
        char rel[128];

        snprintf(rel, sizeof(rel), "proc/%d/mountinfo", pid);
        fake_write(rel, text);
}

static void container_config(const char *id, const char *json) {
        char rel[256];

        snprintf(rel, sizeof(rel), "run/containers/storage/overlay-containers/%s/userdata/config.json", id);
        fake_write(rel, json);
}

static UsageReport *check(void) {
        UsageReport *r = NULL;

        cr_assert_eq(usage_check(&r), 0);
        return r;
}

static char *describe(const UsageReport *r, size_t i) {
        char *s = NULL;

        cr_assert_lt(i, r->n_usages);
        cr_assert_eq(usage_describe(&r->usages[i], &s), 0);
        return s;
}

Test(mount_namespaces, parse_link) {
        uint64_t v = 0;

        cr_assert_eq(mount_namespace_parse_link("mnt:[4026531840]", &v), 0);
        cr_assert_eq(v, 4026531840ULL);
        cr_assert_eq(mount_namespace_parse_link("mnt:[]", &v), -EINVAL);
        cr_assert_eq(mount_namespace_parse_link("net:[4026531840]", &v), -EINVAL);
        cr_assert_eq(mount_namespace_parse_link("mnt:[12x]", &v), -EINVAL);
        cr_assert_eq(mount_namespace_parse_link("mnt:[12", &v), -EINVAL);
        cr_assert_eq(mount_namespace_parse_link("mnt:[-1]", &v), -EINVAL);
        cr_assert_eq(mount_namespace_parse_link(NULL, &v), -EINVAL);
}

Test(mount_namespaces, cgroup_names_the_crio_scope) {
        char id[65];

        cr_assert(crio_id_from_cgroup(
                "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234.slice/crio-" ID ".scope\n", id));
        cr_assert_str_eq(id, ID);
        cr_assert(crio_id_from_cgroup("12:memory:/x\n11:pids:/kubepods.slice/crio-" ID ".scope\n", id),
                  "cgroup v1: any hierarchy line");
        cr_assert(crio_id_from_cgroup("0::/crio-" ID ".scope/container\n", id), "a sub-cgroup of the scope");
        cr_assert_not(crio_id_from_cgroup("0::/machine.slice/crio-conmon-" ID ".scope\n", id),
                      "conmon is not the container");
        cr_assert_not(crio_id_from_cgroup("0::/crio-" ID "0.scope\n", id), "65 hex");
        cr_assert_not(crio_id_from_cgroup("0::/crio-3F1C.scope\n", id));
        cr_assert_not(crio_id_from_cgroup("0::/system.slice/crio.service\n", id));
        cr_assert_not(crio_id_from_cgroup("", id));
        cr_assert_not(crio_id_from_cgroup("crio-" ID ".scope\n", id), "not a path");
}

Test(mount_namespaces, config_annotations) {
        ProcessContainer c = {};

        cr_assert_eq(process_container_parse_config(
                             "{\"annotations\":{\"io.kubernetes.pod.namespace\":\"gpu\",\"io.kubernetes.pod.name\":"
                             "\"mofed-x\",\"io.kubernetes.container.name\":\"mofed-container\"}}", &c), 0);
        cr_assert_str_eq(c.pod_namespace, "gpu");
        cr_assert_str_eq(c.pod_name, "mofed-x");
        cr_assert_str_eq(c.container_name, "mofed-container");
        free(c.pod_namespace);
        free(c.pod_name);
        free(c.container_name);
        c = (ProcessContainer) {};
        cr_assert_eq(process_container_parse_config("[1]", &c), -EBADMSG);
        cr_assert_eq(process_container_parse_config("{\"annotations\":3}", &c), -EBADMSG);
        cr_assert_eq(process_container_parse_config("{\"annotations\":{}", &c), -EBADMSG, "truncated");
        cr_assert_eq(process_container_parse_config("{\"annotations\":{\"io.kubernetes.pod.name\":7}}", &c), 0);
        cr_assert_null(c.pod_name, "a non-string annotation is absent");
}

Test(mount_namespaces, grouped_once_per_namespace) {
        MountNamespaceSet set;
        const MountNamespace *ns;

        process(1, HOST_NS, "systemd", NULL);
        process(2, HOST_NS, "kthreadd", NULL);
        process(300, 200, "sh", NULL);
        process(302, 200, "sleep", NULL);
        process(301, 200, "sleep", NULL);
        process(400, 300, "agent", NULL);
        fake_mkdir("proc/500"); /* exited: no ns/ left */
        fake_mkdir("proc/self-not-a-pid");
        cr_assert_eq(mount_namespace_set_read(&set), 0);
        cr_assert(set.has_host);
        cr_assert_eq(set.host_inode, HOST_NS);
        cr_assert_eq(set.n_processes, 6);
        cr_assert_eq(set.n_namespaces, 3);
        cr_assert_eq(set.n_unreadable, 0);
        ns = mount_namespace_set_find(&set, 200);
        cr_assert_not_null(ns);
        cr_assert_eq(ns->n_pids, 3);
        cr_assert_eq(ns->pids[0], 300);
        cr_assert_eq(ns->pids[1], 301);
        cr_assert_eq(ns->pids[2], 302);
        cr_assert_null(mount_namespace_set_find(&set, 201));
        mount_namespace_set_done(&set);
}

/* The case: the host unmounted, a service's namespace kept its copy
 * (a mount point with a space: mountinfo's \040). */
Test(mount_namespaces, service_copy_named_with_its_processes) {
        _cleanup_(usage_report_freep) UsageReport *r = NULL;
        _cleanup_free_ char *line = NULL;

        process(1, HOST_NS, "systemd", NULL);
        process(312, 4026532301ULL, "dbus-broker", NULL);
        process(313, 4026532301ULL, "dbus-broker-lau", NULL);
        mountinfo(312, "22 1 0:21 / /proc rw - proc proc rw\n"
                       "90 1 259:2 / /mnt/fab\\040data rw,relatime - xfs /dev/nvme1n1 rw\n");
        mountinfo(313, "garbage that must not be read: one table per namespace\n");
        r = check();
        cr_assert_eq(r->n_usages, 1);
        cr_assert_eq(r->usages[0].kind, USAGE_MOUNTED);
        cr_assert_str_eq(r->usages[0].device, "nvme1n1");
        cr_assert_str_eq(r->usages[0].where, "/mnt/fab data");
        cr_assert_eq(r->usages[0].pid, 312);
        cr_assert_not_null(r->usages[0].mount_ns);
        cr_assert_eq(r->usages[0].mount_ns->n_processes, 2);
        line = describe(r, 0);
        cr_assert_str_eq(line, "nvme1n1 is mounted on /mnt/fab data (xfs) in another mount namespace than the host's "
                               "(mnt:[4026532301]), that of 2 processes: 312 (dbus-broker) and 313 (dbus-broker-lau)");
        cr_assert_eq(mount_namespaces_last_stats().tables_read, 1);
        cr_assert_eq(strv_length(r->notes), 0, "%s", r->notes[0]);
}

Test(mount_namespaces, container_copy_named_with_its_pod) {
        _cleanup_(usage_report_freep) UsageReport *r = NULL;
        _cleanup_free_ char *line = NULL;

        process(1, HOST_NS, "systemd", NULL);
        for (int pid = 700; pid < 706; pid++)
                process(pid, 4026532400ULL, pid == 700 ? "pause-less-init" : "worker",
                        "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podabc.slice/crio-" ID
                        ".scope\n");
        mountinfo(700, "30 1 259:1 / /host-data rw - ext4 /dev/nvme0n1p1 rw\n");
        container_config(ID, "{\"ociVersion\":\"1.0.2\",\"annotations\":{\"io.kubernetes.pod.namespace\":"
                             "\"nvidia-network-operator\",\"io.kubernetes.pod.name\":\"mofed-ubuntu-abc\","
                             "\"io.kubernetes.container.name\":\"mofed-container\"}}");
        r = check();
        cr_assert_eq(r->n_usages, 1);
        cr_assert_str_eq(r->usages[0].device, "nvme0n1p1");
        cr_assert_str_eq(r->usages[0].mount_ns->container_id, ID);
        cr_assert_str_eq(r->usages[0].mount_ns->pod_namespace, "nvidia-network-operator");
        line = describe(r, 0);
        cr_assert_str_eq(line, "nvme0n1p1 is mounted on /host-data (ext4) in another mount namespace than the host's "
                               "(mnt:[4026532400]), that of 6 processes: 700 (pause-less-init), 701 (worker), 702 "
                               "(worker) and 3 more; CRI-O container 3f1c2a9b8e7d (mofed-container in pod "
                               "nvidia-network-operator/mofed-ubuntu-abc)");
}

Test(mount_namespaces, container_without_config_named_by_id) {
        _cleanup_(usage_report_freep) UsageReport *r = NULL;
        _cleanup_free_ char *line = NULL;

        process(1, HOST_NS, "systemd", NULL);
        process(700, 4026532400ULL, "init", "0::/crio-" ID ".scope\n");
        mountinfo(700, "30 1 259:2 / /data rw - xfs /dev/nvme1n1 rw\n");
        container_config(ID, "{\"annotations\":");
        r = check();
        line = describe(r, 0);
        cr_assert_str_eq(line, "nvme1n1 is mounted on /data (xfs) in another mount namespace than the host's "
                               "(mnt:[4026532400]), that of process 700 (init); CRI-O container 3f1c2a9b8e7d (its "
                               "config.json could not be read)");
}

/* The host's table explains it: the copies every other namespace holds of
 * that mount are not named again. */
Test(mount_namespaces, host_mount_not_repeated_from_copies) {
        _cleanup_(usage_report_freep) UsageReport *r = NULL;
        _cleanup_free_ char *line = NULL;

        fake_write("proc/1/mountinfo", "40 1 259:2 / /data rw - xfs /dev/nvme1n1 rw\n");
        process(1, HOST_NS, "systemd", NULL);
        process(312, 200, "svc", NULL);
        mountinfo(312, "90 1 259:2 / /data rw - xfs /dev/nvme1n1 rw\n"
                       "91 1 259:1 / /only-here rw - ext4 /dev/nvme0n1p1 rw\n");
        r = check();
        cr_assert_eq(r->n_usages, 2);
        cr_assert_str_eq(r->usages[0].device, "nvme0n1p1");
        cr_assert_not_null(r->usages[0].mount_ns, "the partition is mounted only in the other namespace");
        cr_assert_str_eq(r->usages[1].device, "nvme1n1");
        cr_assert_null(r->usages[1].mount_ns, "the host's own mount, once");
        line = describe(r, 1);
        cr_assert_str_eq(line, "nvme1n1 is mounted on /data (xfs)");
}

/* A process that exits between the listing and its table: the next one of
 * its namespace is read. All gone: nothing, no note. */
Test(mount_namespaces, process_gone_mid_scan) {
        _cleanup_(usage_report_freep) UsageReport *r = NULL;

        process(1, HOST_NS, "systemd", NULL);
        process(300, 200, "gone", NULL);    /* no mountinfo: exited */
        process(301, 200, "alive", NULL);
        process(400, 300, "gone-too", NULL); /* a namespace whose only process went */
        mountinfo(301, "90 1 259:2 / /mnt rw - xfs /dev/nvme1n1 rw\n");
        r = check();
        cr_assert_eq(r->n_usages, 1);
        cr_assert_str_eq(r->usages[0].device, "nvme1n1");
        cr_assert_eq(mount_namespaces_last_stats().tables_read, 1);
        cr_assert_eq(strv_length(r->notes), 0, "%s", r->notes[0]);
}

Test(mount_namespaces, unreadable_links_are_a_note) {
        _cleanup_(usage_report_freep) UsageReport *r = NULL;

        process(1, HOST_NS, "systemd", NULL);
        fake_symlink("proc/77/ns/mnt", "not a namespace");
        fake_symlink("proc/78/ns/mnt", "mnt:[x]");
        r = check();
        cr_assert_eq(r->n_usages, 0);
        cr_assert_eq(strv_length(r->notes), 1);
        cr_assert_str_eq(r->notes[0], "could not read the mount namespace of 2 process(es) (pid 77, 78: Bad message); "
                                      "a mount only their namespace shows is still caught by the kernel's exclusive "
                                      "open, without a name");
}

Test(mount_namespaces, host_namespace_unknown_is_a_note) {
        _cleanup_(usage_report_freep) UsageReport *r = NULL;

        process(312, 200, "svc", NULL);
        mountinfo(312, "90 1 259:2 / /mnt rw - xfs /dev/nvme1n1 rw\n");
        r = check();
        cr_assert_eq(r->n_usages, 0, "without the host's namespace nothing is told apart");
        cr_assert_eq(strv_length(r->notes), 1);
        cr_assert(strstr(r->notes[0], "could not read the host's mount namespace (/proc/1/ns/mnt)"), "%s", r->notes[0]);
}

Test(mount_namespaces, no_namespace_links_is_silent) {
        _cleanup_(usage_report_freep) UsageReport *r = check();

        cr_assert_eq(r->n_usages, 0);
        cr_assert_eq(strv_length(r->notes), 0, "a fake root without ns links: %s", r->notes[0]);
}

Test(mount_namespaces, holder_mounted_in_another_namespace) {
        _cleanup_(usage_report_freep) UsageReport *r = NULL;
        _cleanup_free_ char *line = NULL;

        fake_block_device("virtual/block", "dm-0", "253:0", "100");
        fake_write("sys/devices/virtual/block/dm-0/dm/name", "vg0-data\n");
        fake_mkdir("sys/devices/virtual/block/dm-0/holders");
        fake_symlink("sys/class/block/nvme0n1p1/holders/dm-0", "../../../../../virtual/block/dm-0");
        process(1, HOST_NS, "systemd", NULL);
        process(312, 200, "svc", NULL);
        mountinfo(312, "90 1 253:0 / /srv rw - ext4 /dev/mapper/vg0-data rw\n");
        r = check();
        cr_assert_eq(r->n_usages, 1);
        line = describe(r, 0);
        cr_assert_str_eq(line, "nvme0n1p1 is held by dm-0 (vg0-data), mounted on /srv in the mount namespace "
                               "(mnt:[200]) of process 312 (svc) (ext4)");
}

/* Thousands of processes in tens of namespaces: one table per namespace.
 * The timeout only catches a hang: under ASan on a loaded 2-core machine the
 * 3,000 fake processes took longer than the 30 s it used to allow. */
Test(mount_namespaces, many_processes_one_table_per_namespace, .timeout = 300) {
        _cleanup_(usage_report_freep) UsageReport *r = NULL;

        process(1, HOST_NS, "systemd", NULL);
        for (int pid = 100; pid < 3100; pid++)
                process(pid, 5000 + (uint64_t) (pid % 50), "p", NULL);
        for (int ns = 0; ns < 50; ns++) {
                int first = 100 + ((ns - 100 % 50 + 50) % 50); /* the lowest pid with pid % 50 == ns */

                mountinfo(first, ns == 7 ? "90 1 259:2 / /deep rw - xfs /dev/nvme1n1 rw\n"
                                         : "22 1 0:21 / /proc rw - proc proc rw\n");
        }
        r = check();
        cr_assert_eq(mount_namespaces_last_stats().processes, 3001);
        cr_assert_eq(mount_namespaces_last_stats().namespaces, 51);
        cr_assert_eq(mount_namespaces_last_stats().tables_read, 50);
        cr_assert_eq(r->n_usages, 1);
        cr_assert_eq(r->usages[0].mount_ns->inode, 5007);
        cr_assert_eq(r->usages[0].mount_ns->n_processes, 60);
}

Test(mount_namespaces, json_names_namespace_and_container) {
        _cleanup_(usage_report_freep) UsageReport *r = NULL;
        _cleanup_json_ struct json_object *o = NULL;
        struct json_object *m, *c, *p;

        process(1, HOST_NS, "systemd", NULL);
        process(700, 4026532400ULL, "init", "0::/crio-" ID ".scope\n");
        mountinfo(700, "30 1 259:2 / /data rw - xfs /dev/nvme1n1 rw\n");
        container_config(ID, "{\"annotations\":{\"io.kubernetes.pod.namespace\":\"ns\",\"io.kubernetes.pod.name\":"
                             "\"pod\",\"io.kubernetes.container.name\":\"ctr\"}}");
        r = check();
        cr_assert_eq(report_usage_json(&r->usages[0], &o), 0);
        cr_assert_str_eq(json_get_string(o, "kind"), "mounted");
        cr_assert(json_object_object_get_ex(o, "mount_namespace", &m) && m);
        cr_assert_eq(json_get_int64(m, "inode"), 4026532400LL);
        cr_assert_eq(json_get_int64(m, "process_count"), 1);
        cr_assert(json_object_object_get_ex(m, "processes", &p));
        cr_assert_eq(json_object_array_length(p), 1);
        cr_assert_str_eq(json_get_string(json_object_array_get_idx(p, 0), "command"), "init");
        cr_assert(json_object_object_get_ex(m, "container", &c) && c);
        cr_assert_str_eq(json_get_string(c, "id"), ID);
        cr_assert_str_eq(json_get_string(c, "pod_namespace"), "ns");
        cr_assert_str_eq(json_get_string(c, "pod_name"), "pod");
        cr_assert_str_eq(json_get_string(c, "container_name"), "ctr");
}

/* EACCES, as a process's ns link reads to a caller without the right to
 * trace it: here a directory the caller may not search (root ignores modes,
 * so the check runs in a child as nobody). A note, never a crash nor a
 * blocker of its own. */
Test(mount_namespaces, eacces_links_are_a_note) {
        char path[4096];
        pid_t child;
        int status;

        if (geteuid() != 0)
                cr_skip_test("needs root to become nobody");
        process(1, HOST_NS, "systemd", NULL);
        process(300, 200, "svc", NULL);
        snprintf(path, sizeof(path), "%s/proc/300/ns", host_root());
        cr_assert_eq(chmod(path, 0700), 0);
        cr_assert_eq(chmod(host_root(), 0755), 0);
        child = fork();
        cr_assert_geq(child, 0);
        if (child == 0) {
                UsageReport *r = NULL;

                if (setgid(65534) < 0 || setuid(65534) < 0 || usage_check(&r) < 0)
                        _exit(2);
                _exit(strv_length(r->notes) == 1 &&
                      strstr(r->notes[0], "could not read the mount namespace of 1 process(es) (pid 300: "
                                          "Permission denied)") ? 0 : 1);
        }
        cr_assert_eq(waitpid(child, &status, 0), child);
        cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child saw no EACCES note (exit %d)",
                  WEXITSTATUS(status));
}
