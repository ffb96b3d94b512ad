/* SPDX-License-Identifier: Apache-2.0 */
/* The fakeroot suite (test-cli.c), load and restore: NVIDIA's build from the
 * driver container's tree, refused builds rolled back, the in-tree stack put
 * back. */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test-cli-world.h"

/* ---- load and restore ------------------------------------------------------ */

/* What the driver container holds after its build: NVIDIA's nvme_core and
 * nvme, depending on mlx_compat (loaded by openibd) and t10_pi (only in the
 * host tree). */
static void container_tree(const char *subdir, const char *vermagic, bool with_modules_dep) {
        char rel[128];
        const char *const nvme_extra[] = { "fake_taint=OE", "fake_exports=nvme_v1_register_nvfs_dma_ops", NULL };
        const char *const core_extra[] = { "fake_taint=OE", NULL };

        host_tree();
        module("mlx_compat", 0, NULL, "OE");
        cr_assert_eq(fake_node_add_namespace(node, 0, 1, false, 0), 0);
        snprintf(rel, sizeof(rel), "%s/nvme-core.ko", subdir);
        ko(CONTAINER_TREE, rel, "nvme_core", "mlx_compat,t10-pi", vermagic, core_extra);
        snprintf(rel, sizeof(rel), "%s/nvme.ko", subdir);
        ko(CONTAINER_TREE, rel, "nvme", "nvme-core,mlx_compat", vermagic, nvme_extra);
        if (with_modules_dep)
                cr_assert_eq(fake_node_write_modules_dep(node, CONTAINER_TREE), 0);
}

static void assert_loaded_from_container(const CliRun *r) {
        const char *p_t10 = strstr(r->klog, "init_module t10_pi flags=0x0 -> 0");
        const char *p_core = strstr(r->klog, "init_module nvme_core flags=0x0 -> 0");
        const char *p_nvme = strstr(r->klog, "init_module nvme flags=0x0 -> 0");

        cr_assert(p_t10 && p_core && p_nvme, "not all loaded:\n%s", r->klog);
        cr_assert(p_t10 < p_core && p_core < p_nvme, "wrong load order:\n%s", r->klog);
        cr_assert(strstr(r->out, "/proc/4242/root/lib/modules/"), "the container path is not named");
        cr_assert(strstr(r->out, HOST_TREE "/kernel/block/t10-pi.ko"), "t10_pi not from the host tree");
        cr_assert(loaded("nvme") && loaded("nvme_core") && loaded("t10_pi"));
}

static void load_and_check(void) {
        CliRun r;
        struct json_object *o;

        RUN(&r, NULL, "load", "--from", CONTAINER_TREE);
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        assert_loaded_from_container(&r);
        cli_run_done(&r);

        RUN(&r, NULL, "status", "--json");
        cr_assert_eq(r.exit_code, 0);
        o = parse(&r);
        cr_assert_str_eq(str(find_named(get(o, "modules"), "nvme"), "origin"), "nvidia");
        json_object_put(o);
        cli_run_done(&r);
}

Test(fakeroot, load_from_container_rpm_layout) {
        container_tree("extra/mlnx-nvme/host", NULL, true);
        load_and_check();
}

Test(fakeroot, load_from_container_dkms_layout_without_modules_dep) {
        container_tree("updates", NULL, false);
        load_and_check();
}

Test(fakeroot, load_refuses_vermagic_mismatch_before_any_load) {
        CliRun r;

        container_tree("extra/mlnx-nvme/host", "5.14.0-284.el9.x86_64", true);
        RUN(&r, NULL, "load", "--from", CONTAINER_TREE, "--json", "--no-restore");
        dump(&r);
        cr_assert_eq(r.exit_code, 1);
        cr_assert(strstr(r.out, "5.14.0-284.el9.x86_64") && strstr(r.out, RELEASE), "releases not named");
        cr_assert(strstr(r.out, "\"outcome\": \"skipped\""), "--no-restore not reported:\n%s", r.out);
        cr_assert_eq(count_lines_with(r.klog, "init_module"), 0, "something was loaded");
        cr_assert_not(loaded("nvme_core"));
        cr_assert_not(loaded("t10_pi"));
        cli_run_done(&r);
}

/* The in-tree stack was unloaded (the operator's `unload`), NVIDIA's
 * build is refused: the load rolls back what it inserted and puts the
 * in-tree stack back: the CLI never leaves a node without a driver. */
static void node_file(const char *rel, const char *text) {
        char path[1024], cmd[1200];
        FILE *f;

        snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s/%s')\"", root, rel);
        cr_assert_eq(system(cmd), 0);
        snprintf(path, sizeof(path), "%s/%s", root, rel);
        f = fopen(path, "we");
        cr_assert_not_null(f, "%s", path);
        fputs(text, f);
        fclose(f);
}

static void unloaded_node_with_container(void) {
        container_tree("extra/mlnx-nvme/host", NULL, true);
}

static const char *origin_of(struct json_object *status, const char *m) {
        return str(find_named(get(status, "modules"), m), "origin");
}

static void assert_in_tree_loaded(void) {
        CliRun r;
        struct json_object *o;

        RUN(&r, NULL, "status", "--json");
        cr_assert_eq(r.exit_code, 0);
        o = parse(&r);
        cr_assert_str_eq(origin_of(o, "nvme"), "in-tree");
        cr_assert_str_eq(origin_of(o, "nvme_core"), "in-tree");
        json_object_put(o);
        cli_run_done(&r);
}

Test(fakeroot, load_rejected_signature_restores_the_in_tree_stack) {
        CliRun r;

        unloaded_node_with_container();
        node_file("sys/module/module/parameters/sig_enforce", "Y\n");
        RUN(&r, "load nvme EKEYREJECTED\n", "load", "--from", CONTAINER_TREE);
        dump(&r);
        cr_assert_eq(r.exit_code, 1, "a failed load, restored, is exit 1");
        cr_assert(strstr(r.out, "nvme") && strstr(r.out, "signature rejected"), "rejection not reported");
        cr_assert(strstr(r.out, "Key was rejected by service"), "the kernel's answer not given:\n%s", r.out);
        cr_assert(strstr(r.out, "this kernel loads only modules signed by a key it trusts (module.sig_enforce=Y)") &&
                  strstr(r.out, "mokutil --import") && strstr(r.out, "leave this node on the in-tree stack"),
                  "the signing remedies are not given:\n%s", r.out);
        cr_assert(strstr(r.out, "restored: the in-tree NVMe stack is loaded again, because the load from " CONTAINER_TREE
                             " failed"), "the restore is not said:\n%s", r.out);
        cr_assert_eq(count_lines_with(r.klog, "init_module nvme flags=0x0 -> EKEYREJECTED scripted"), 1);
        cr_assert_eq(count_lines_with(r.klog, "delete_module nvme_core flags=0x800 -> 0"), 1, "not rolled back");
        cr_assert_eq(count_lines_with(r.klog, "init_module nvme_core flags=0x0 -> 0"), 2, "NVIDIA's, then the host's");
        cr_assert_eq(count_lines_with(r.klog, "init_module nvme flags=0x0 -> 0"), 1, "the host's nvme");
        assert_never_forced(r.klog);
        cli_run_done(&r);
        assert_in_tree_loaded();
}

Test(fakeroot, load_rejected_under_lockdown_says_so) {
        CliRun r;

        unloaded_node_with_container();
        node_file("sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
        RUN(&r, "load nvme EPERM\n", "load", "--from", CONTAINER_TREE);
        dump(&r);
        cr_assert_eq(r.exit_code, 1);
        cr_assert(strstr(r.out, "(lockdown=integrity, as under Secure Boot)"), "lockdown not named:\n%s", r.out);
        cli_run_done(&r);
        assert_in_tree_loaded();
}

Test(fakeroot, load_failed_with_no_restore_leaves_the_node) {
        CliRun r;

        unloaded_node_with_container();
        RUN(&r, "load nvme EKEYREJECTED\n", "load", "--from", CONTAINER_TREE, "--no-restore");
        dump(&r);
        cr_assert_eq(r.exit_code, 1);
        cr_assert(strstr(r.out, "not restored (--no-restore)") && strstr(r.out, "restore`"), "not said:\n%s", r.out);
        cr_assert(strstr(r.out, "signature rejected by the kernel: this kernel loads only modules signed"),
                  "the rejection is explained also without enforcement read:\n%s", r.out);
        cr_assert_eq(count_lines_with(r.klog, "init_module nvme_core flags=0x0 -> 0"), 1, "only NVIDIA's, rolled back");
        cr_assert_not(loaded("nvme"));
        cr_assert_not(loaded("nvme_core"));
        cli_run_done(&r);
}

/* The restore meets the same refusal (x2: the container's nvme, then the
 * host's): exit 4 and a message that says the node may have no driver. */
Test(fakeroot, load_failed_and_restore_failed_says_so) {
        CliRun r;
        struct json_object *o;

        unloaded_node_with_container();
        RUN(&r, "load nvme EKEYREJECTED x2\n", "load", "--from", CONTAINER_TREE);
        dump(&r);
        cr_assert_eq(r.exit_code, 4);
        cr_assert(strstr(r.out, "restoring the in-tree stack from the host's module tree:"), "%s", r.out);
        cr_assert(strstr(r.out, "not restored: the in-tree stack could not be loaded again after the failed load") &&
                  strstr(r.out, "may have no NVMe driver") && strstr(r.out, "restore`"), "not said:\n%s", r.out);
        cr_assert_eq(count_lines_with(r.klog, "-> EKEYREJECTED scripted"), 2);
        cr_assert_not(loaded("nvme"));
        cli_run_done(&r);

        RUN(&r, NULL, "restore", "--json");
        cr_assert_eq(r.exit_code, 0, "the operator's restore, once the cause is gone");
        cli_run_done(&r);

        RUN(&r, NULL, "unload");
        cr_assert_eq(r.exit_code, 0);
        cli_run_done(&r);

        RUN(&r, "load nvme EKEYREJECTED\n", "load", "--from", CONTAINER_TREE, "--json");
        dump(&r);
        cr_assert_eq(r.exit_code, 1, "failed, and the in-tree stack back");
        o = parse(&r);
        cr_assert_str_eq(str(get(o, "restore"), "outcome"), "restored");
        cr_assert_not(json_object_get_boolean(get(o, "ok")));
        json_object_put(o);
        cli_run_done(&r);
}

Test(fakeroot, restore_loads_the_in_tree_stack) {
        CliRun r;
        struct json_object *o;

        host_tree();
        cr_assert_eq(fake_node_add_namespace(node, 0, 1, false, 0), 0);
        RUN(&r, NULL, "restore", "--module", "nvme", "--module", "nvme-tcp", "--json");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        o = parse(&r);
        cr_assert(json_object_get_boolean(get(o, "ok")));
        cr_assert_eq(json_object_array_length(get(o, "modules")), 5, "t10_pi nvme_core nvme nvme_fabrics nvme_tcp");
        json_object_put(o);
        for (const char *const *m = HOLDERS("t10_pi", "nvme_core", "nvme", "nvme_fabrics", "nvme_tcp"); *m; m++)
                cr_assert(loaded(*m), "%s not loaded", *m);
        cr_assert_eq(count_lines_with(r.klog, "-> 0"), 5);
        cli_run_done(&r);

        /* A second restore finds everything there and loads nothing. */
        RUN(&r, NULL, "restore");
        cr_assert_eq(r.exit_code, 0);
        cr_assert_str_eq(r.klog, "");
        cli_run_done(&r);
}
