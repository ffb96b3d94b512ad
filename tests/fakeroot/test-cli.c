/* SPDX-License-Identifier: Apache-2.0 */
/* The fakeroot suite: the real nvme-swapguard-kmod against a fake node and
 * the fake kernel. Each test asserts the exit code, what the output names,
 * the fake kernel's call log and the final module state.
 * Here: status, check, plan; test-cli-unload.c and test-cli-load.c hold the
 * rest, test-cli-world.c what they share. */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test-cli-world.h"

static void setup(void) {
        cli_suite_open("fakeroot", (const char *const[]) { "SWAPGUARD_KMOD", "FAKE_KERNEL_SO", NULL });
}

TestSuite(fakeroot, .init = setup, .fini = cli_suite_close, .timeout = 300);

/* ---- status --------------------------------------------------------------- */

Test(fakeroot, status_plain_node) {
        CliRun r;
        struct json_object *o, *m;

        plain_node();
        RUN(&r, NULL, "status", "--json");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        o = parse(&r);
        m = find_named(get(o, "modules"), "nvme_core");
        cr_assert(json_object_get_boolean(get(m, "loaded")));
        cr_assert_str_eq(str(m, "origin"), "in-tree");
        cr_assert_eq(json_object_get_int(get(m, "refcnt")), 1);
        cr_assert_str_eq(json_object_get_string(json_object_array_get_idx(get(m, "holders"), 0)), "nvme");
        m = find_named(get(o, "modules"), "nvme_tcp");
        cr_assert_not(json_object_get_boolean(get(m, "loaded")));
        cr_assert_str_eq(str(m, "origin"), "absent");
        m = find_named(get(o, "namespaces"), "nvme0n1");
        cr_assert_not(json_object_get_boolean(get(m, "in_use")));
        cr_assert_eq(json_object_array_length(get(m, "users")), 0);
        cr_assert_str_eq(r.klog, "", "status called the kernel");
        json_object_put(o);
        cli_run_done(&r);
}

Test(fakeroot, status_nvidia_build) {
        CliRun r;
        struct json_object *o, *m;

        host_tree();
        module("mlx_compat", -1, HOLDERS("nvme", "nvme_core"), "OE");
        module("nvme_core", -1, HOLDERS("nvme"), "OE");
        module("nvme", 0, NULL, "OE");
        cr_assert_eq(fake_node_add_kallsyms(node, "nvme_v1_register_nvfs_dma_ops", "nvme"), 0);
        cr_assert_eq(fake_node_add_namespace(node, 0, 1, false, 0), 0);

        RUN(&r, NULL, "status", "--json");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        o = parse(&r);
        m = find_named(get(o, "modules"), "nvme");
        cr_assert_str_eq(str(m, "origin"), "nvidia");
        cr_assert(json_object_get_boolean(get(m, "gds_hooks")));
        m = find_named(get(o, "modules"), "nvme_core");
        cr_assert_str_eq(str(m, "origin"), "nvidia");
        cr_assert(json_object_get_boolean(get(m, "holds_mlx_compat")));
        json_object_put(o);
        cli_run_done(&r);

        RUN(&r, NULL, "status");
        cr_assert_eq(r.exit_code, 0);
        cr_assert(strstr(r.out, "nvidia"), "text status does not name the build:\n%s", r.out);
        cli_run_done(&r);
}

Test(fakeroot, status_out_of_tree) {
        CliRun r;
        struct json_object *o;

        host_tree();
        module("nvme_core", -1, HOLDERS("nvme"), "OE");
        module("nvme", 0, NULL, "OE");
        cr_assert_eq(fake_node_add_namespace(node, 0, 1, false, 0), 0);
        RUN(&r, NULL, "status", "--json");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        o = parse(&r);
        cr_assert_str_eq(str(find_named(get(o, "modules"), "nvme"), "origin"), "out-of-tree");
        cr_assert_str_eq(str(find_named(get(o, "modules"), "nvme_core"), "origin"), "out-of-tree");
        json_object_put(o);
        cli_run_done(&r);
}

/* ---- check ---------------------------------------------------------------- */

static void check_expect_busy(const char *const *needles, const char *kind) {
        CliRun r;
        struct json_object *o, *usages;
        bool kind_seen = false;

        RUN(&r, NULL, "check");
        dump(&r);
        cr_assert_eq(r.exit_code, 3);
        for (size_t i = 0; needles[i]; i++)
                cr_assert(strstr(r.out, needles[i]), "check output does not name \"%s\":\n%s", needles[i], r.out);
        cli_run_done(&r);

        RUN(&r, NULL, "check", "--json");
        cr_assert_eq(r.exit_code, 3);
        o = parse(&r);
        cr_assert(json_object_get_boolean(get(o, "in_use")));
        usages = get(o, "usages");
        cr_assert_gt(json_object_array_length(usages), 0);
        for (size_t i = 0; i < json_object_array_length(usages); i++)
                kind_seen = kind_seen || strcmp(str(json_object_array_get_idx(usages, i), "kind"), kind) == 0;
        cr_assert(kind_seen, "no usage of kind %s in %s", kind, r.out);
        json_object_put(o);
        cli_run_done(&r);
}

Test(fakeroot, check_free) {
        CliRun r;
        struct json_object *o;

        plain_node();
        RUN(&r, NULL, "check", "--json");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        o = parse(&r);
        cr_assert_not(json_object_get_boolean(get(o, "in_use")));
        cr_assert_eq(json_object_array_length(get(o, "devices")), 3, "nvme0n1 and two partitions");
        json_object_put(o);
        cli_run_done(&r);
}

Test(fakeroot, check_mounted) {
        plain_node();
        cr_assert_eq(fake_node_add_mount(node, "nvme0n1p1", "/var/lib/data", "xfs"), 0);
        check_expect_busy(HOLDERS("nvme0n1p1", "/var/lib/data", "xfs"), "mounted");
}

Test(fakeroot, check_swap) {
        plain_node();
        cr_assert_eq(fake_node_add_swap(node, "nvme0n1p2"), 0);
        check_expect_busy(HOLDERS("nvme0n1p2", "swap"), "swap");
}

Test(fakeroot, check_dm_holder) {
        plain_node();
        cr_assert_eq(fake_node_add_dm_holder(node, "nvme0n1p1", "vg0-data"), 0);
        check_expect_busy(HOLDERS("nvme0n1p1", "vg0-data"), "holder");
}

Test(fakeroot, check_process) {
        plain_node();
        cr_assert_eq(fake_node_add_process_fd(node, 4321, "fio", "nvme0n1"), 0);
        check_expect_busy(HOLDERS("nvme0n1", "4321", "fio"), "open-by-process");
}

Test(fakeroot, check_kernel_claim_only) {
        plain_node();
        cr_assert_eq(fake_node_claim(node, "nvme0n1p2"), 0);
        check_expect_busy(HOLDERS("nvme0n1p2"), "kernel-claim");
}

/* ---- plan ----------------------------------------------------------------- */

/* A mount only another mount namespace holds (the host's umount
 * left a service's and a container's private copies): named with the
 * processes and the container, never a bare kernel claim. */
#define NS_CONTAINER "0badc0ffee0ddf00d0badc0ffee0ddf00d0badc0ffee0ddf00d0badc0ffee0dd"

static void node_with_namespace_copies(void) {
        plain_node();
        cr_assert_eq(fake_node_set_mount_namespace(node, 312, 4026532301ULL, "dbus-broker"), 0);
        cr_assert_eq(fake_node_set_mount_namespace(node, 313, 4026532301ULL, "dbus-broker-lau"), 0);
        cr_assert_eq(fake_node_add_namespace_mount(node, 312, "nvme0n1p1", "/mnt/fab", "xfs"), 0);
        cr_assert_eq(fake_node_add_container(node, &(FakeContainer) { .id = NS_CONTAINER, .pid = 4300,
                                                                      .namespace = "team-a", .name = "app" }), 0);
        cr_assert_eq(fake_node_set_mount_namespace(node, 4300, 4026532555ULL, "app"), 0);
        cr_assert_eq(fake_node_add_namespace_mount(node, 4300, "nvme0n1p2", "/host\\040data", "ext4"), 0);
}

Test(fakeroot, check_names_other_mount_namespaces) {
        CliRun r;

        node_with_namespace_copies();
        RUN(&r, NULL, "check");
        dump(&r);
        cr_assert_eq(r.exit_code, 3);
        cr_assert(strstr(r.out, "nvme0n1p1 is mounted on /mnt/fab (xfs) in another mount namespace than the host's "
                                "(mnt:[4026532301]), that of 2 processes: 312 (dbus-broker) and 313 (dbus-broker-lau)"),
                  "the service's copy is not named:\n%s", r.out);
        cr_assert(strstr(r.out, "nvme0n1p2 is mounted on /host data (ext4) in another mount namespace than the host's "
                                "(mnt:[4026532555]), that of process 4300 (app); CRI-O container 0badc0ffee0d (app in "
                                "pod team-a/"), "the container's copy is not named:\n%s", r.out);
        cr_assert_null(strstr(r.out, "claimed in the kernel"), "a bare kernel claim:\n%s", r.out);
        cli_run_done(&r);
}

Test(fakeroot, unload_refused_names_the_namespace_holder) {
        CliRun r;
        struct json_object *o;
        char *before;

        node_with_namespace_copies();
        before = module_state();
        RUN(&r, NULL, "unload", "--json");
        dump(&r);
        cr_assert_eq(r.exit_code, 3);
        assert_touched_nothing(&r, before);
        o = parse(&r);
        cr_assert_str_eq(str(o, "outcome"), "refused-in-use");
        cr_assert(strstr(r.out, "\"mount_namespace\"") && strstr(r.out, "\"container_name\": \"app\"") &&
                  strstr(r.out, "\"command\": \"dbus-broker\""), "not in --json:\n%s", r.out);
        json_object_put(o);
        cli_run_done(&r);
}

Test(fakeroot, plan_order_tcp_stack) {
        struct json_object *order;

        tcp_node();
        order = plan_order();
        cr_assert_eq(json_object_array_length(order), 4, "%s", json_object_to_json_string(order));
        cr_assert_lt(pos(order, "nvme_tcp"), pos(order, "nvme_fabrics"));
        cr_assert_lt(pos(order, "nvme_fabrics"), pos(order, "nvme_core"));
        cr_assert_lt(pos(order, "nvme"), pos(order, "nvme_core"));
        cr_assert_eq(pos(order, "nvme_core"), 3);
        cr_assert_eq(pos(order, "t10_pi"), -1, "t10_pi is not part of the stack");
        json_object_put(order);
}

Test(fakeroot, plan_blocked_when_mounted) {
        CliRun r;

        tcp_node();
        cr_assert_eq(fake_node_add_mount(node, "nvme0n1", "/srv", "ext4"), 0);
        RUN(&r, NULL, "plan");
        dump(&r);
        cr_assert_eq(r.exit_code, 3);
        cr_assert(strstr(r.out, "/srv"));
        cli_run_done(&r);
}
