/* SPDX-License-Identifier: Apache-2.0 */
/* The fakeroot suite (test-cli.c), unload: the stack removed in its order,
 * retried, put back, or refused with nothing touched. */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test-cli-world.h"

/* ---- unload --------------------------------------------------------------- */

Test(fakeroot, unload_free_removes_all_in_order) {
        struct json_object *order;
        CliRun r;

        tcp_node();
        order = plan_order();
        RUN(&r, NULL, "unload");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        cr_assert_eq(count_lines_with(r.klog, "delete_module"), 4, "one call per module, no retry");
        for (size_t i = 1; i < json_object_array_length(order); i++) {
                const char *a = json_object_get_string(json_object_array_get_idx(order, i - 1));
                const char *b = json_object_get_string(json_object_array_get_idx(order, i));

                cr_assert_geq(removal_index(r.klog, a), 0, "%s not removed", a);
                cr_assert_lt(removal_index(r.klog, a), removal_index(r.klog, b), "%s after %s", a, b);
        }
        assert_never_forced(r.klog);
        for (const char *const *m = HOLDERS("nvme_tcp", "nvme_fabrics", "nvme", "nvme_core"); *m; m++)
                cr_assert_not(loaded(*m), "%s still loaded", *m);
        cr_assert(loaded("t10_pi"));
        cr_assert(strstr(r.out, "removed"));
        json_object_put(order);
        cli_run_done(&r);
}

Test(fakeroot, unload_dry_run_touches_nothing) {
        CliRun r;
        char *before;

        tcp_node();
        before = module_state();
        RUN(&r, NULL, "unload", "--dry-run", "--json");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        cr_assert(strstr(r.out, "would-remove"));
        assert_touched_nothing(&r, before);
        cli_run_done(&r);
}

Test(fakeroot, unload_refused_when_in_use_touches_nothing) {
        CliRun r;
        char *before;

        tcp_node();
        cr_assert_eq(fake_node_add_mount(node, "nvme0n1p1", "/var/lib/containers", "xfs"), 0);
        before = module_state();
        RUN(&r, NULL, "unload");
        dump(&r);
        assert_refused_untouched(&r, before, HOLDERS("nvme0n1p1", "/var/lib/containers"));
        cli_run_done(&r);
}

Test(fakeroot, unload_retries_eagain_once) {
        CliRun r;

        plain_node();
        RUN(&r, "delete_module nvme EAGAIN\n", "unload");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        cr_assert_eq(count_lines_with(r.klog, "delete_module nvme flags=0x800 -> EAGAIN scripted"), 1);
        cr_assert_eq(count_lines_with(r.klog, "delete_module nvme flags=0x800 -> 0"), 1);
        cr_assert_eq(count_lines_with(r.klog, "delete_module nvme_core flags=0x800 -> 0"), 1);
        assert_never_forced(r.klog);
        cr_assert_not(loaded("nvme"));
        cr_assert_not(loaded("nvme_core"));
        cli_run_done(&r);
}

Test(fakeroot, unload_eagain_forever_puts_back) {
        CliRun r;
        char *before;

        tcp_node();
        before = module_state();
        /* nvme_core is last in every valid order: three removals happen first. */
        RUN(&r, "delete_module nvme_core EAGAIN always\n", "unload");
        dump(&r);
        cr_assert_eq(r.exit_code, 1);
        cr_assert(strstr(r.out, "nvme_core"), "the failed module is not named");
        cr_assert_eq(count_lines_with(r.klog, "delete_module nvme_core flags=0x800 -> EAGAIN"), 5, "bounded retry");
        for (const char *const *m = HOLDERS("nvme_tcp", "nvme_fabrics", "nvme"); *m; m++) {
                char removed[96], reloaded[96];

                snprintf(removed, sizeof(removed), "delete_module %s flags=0x800 -> 0", *m);
                snprintf(reloaded, sizeof(reloaded), "init_module %s flags=0x0 -> 0", *m);
                cr_assert_eq(count_lines_with(r.klog, removed), 1, "%s not removed once", *m);
                cr_assert_eq(count_lines_with(r.klog, reloaded), 1, "%s not put back", *m);
                cr_assert(loaded(*m));
        }
        assert_never_forced(r.klog);
        assert_module_state_is(before, "final state differs from the initial one");
        cli_run_done(&r);
}

Test(fakeroot, unload_stops_when_a_mount_appears_mid_plan) {
        struct json_object *order;
        const char *first;
        char script[256], line[128];
        CliRun r;

        tcp_node();
        order = plan_order();
        first = json_object_get_string(json_object_array_get_idx(order, 0));
        snprintf(script, sizeof(script), "delete_module %s ok then-mount nvme0n1p2 /mnt/late ext4\n", first);
        RUN(&r, script, "unload");
        dump(&r);
        cr_assert_eq(r.exit_code, 3);
        cr_assert(strstr(r.out, "/mnt/late") && strstr(r.out, "nvme0n1p2"), "the late mount is not named");
        cr_assert_eq(count_lines_with(r.klog, "-> 0"), 2, "one removal, one load back");
        snprintf(line, sizeof(line), "init_module %s flags=0x0 -> 0", first);
        cr_assert_eq(count_lines_with(r.klog, line), 1, "%s not put back", first);
        for (const char *const *m = HOLDERS("nvme_tcp", "nvme_fabrics", "nvme", "nvme_core"); *m; m++)
                cr_assert(loaded(*m), "%s missing after the stop", *m);
        json_object_put(order);
        cli_run_done(&r);
}

Test(fakeroot, unload_nothing_loaded) {
        CliRun r;

        host_tree();
        RUN(&r, NULL, "unload", "--json");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        cr_assert(strstr(r.out, "not-loaded"));
        cr_assert_str_eq(r.klog, "");
        cli_run_done(&r);
}

Test(fakeroot, unload_refused_when_plan_blocked) {
        CliRun r;
        char *before;

        /* nvme_core pinned by two references nothing on the node explains. */
        host_tree();
        module("t10_pi", -1, HOLDERS("nvme_core"), "");
        module("nvme_core", 3, HOLDERS("nvme"), "");
        module("nvme", 0, NULL, "");
        cr_assert_eq(fake_node_add_namespace(node, 0, 1, false, 0), 0);
        before = module_state();
        RUN(&r, NULL, "unload", "--json");
        dump(&r);
        assert_refused_untouched(&r, before, HOLDERS("refused-blocked", "nvme_core"));
        cli_run_done(&r);
}

Test(fakeroot, unload_refused_on_kernel_claim_alone) {
        CliRun r;

        plain_node();
        cr_assert_eq(fake_node_claim(node, "nvme0n1"), 0);
        RUN(&r, NULL, "unload");
        dump(&r);
        cr_assert_eq(r.exit_code, 3);
        cr_assert(strstr(r.out, "nvme0n1"), "the claimed device is not named");
        cr_assert_eq(count_lines_with(r.klog, "delete_module"), 0);
        cr_assert(loaded("nvme") && loaded("nvme_core"));
        cli_run_done(&r);
}
