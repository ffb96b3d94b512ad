/* SPDX-License-Identifier: Apache-2.0 */
/* The fakeroot suite: the real nvme-swapguard-kmod against a fake node and
 * the fake kernel. Each test asserts the exit code, what the output names,
 * the fake kernel's call log and the final module state. */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake-cli-suite.h"

#define O_TRUNC_FLAG 0x200 /* KMOD_REMOVE_FORCE */

static void setup(void) {
        cli_suite_open("fakeroot", (const char *const[]) { "SWAPGUARD_KMOD", "FAKE_KERNEL_SO", NULL });
}

TestSuite(fakeroot, .init = setup, .fini = cli_suite_close, .timeout = 60);

/* ---- building nodes ----------------------------------------------------- */

static void module(const char *name, int refcnt, const char *const *holders, const char *taint) {
        cr_assert_eq(fake_node_add_module(node, name, refcnt, holders, taint), 0, "module %s", name);
}

#define HOLDERS(...) ((const char *const[]) { __VA_ARGS__, NULL })

static void host_tree(void) {
        ko(HOST_TREE, "kernel/block/t10-pi.ko", "t10_pi", "", NULL, NULL);
        ko(HOST_TREE, NVME_HOST "nvme-core.ko", "nvme_core", "t10-pi", NULL, NULL);
        ko(HOST_TREE, NVME_HOST "nvme.ko", "nvme", "nvme-core", NULL, NULL);
        ko(HOST_TREE, NVME_HOST "nvme-fabrics.ko", "nvme_fabrics", "nvme-core", NULL, NULL);
        ko(HOST_TREE, NVME_HOST "nvme-tcp.ko", "nvme_tcp", "nvme-core,nvme-fabrics", NULL, NULL);
        ko(HOST_TREE, NVME_HOST "nvme-rdma.ko", "nvme_rdma", "nvme-core,nvme-fabrics", NULL, NULL);
        cr_assert_eq(fake_node_write_modules_dep(node, HOST_TREE), 0);
}

/* The in-tree stack for one PCIe namespace with two partitions. */
static void plain_node(void) {
        host_tree();
        module("t10_pi", -1, HOLDERS("nvme_core"), "");
        module("nvme_core", -1, HOLDERS("nvme"), "");
        module("nvme", 0, NULL, "");
        cr_assert_eq(fake_node_add_namespace(node, 0, 1, false, 2), 0);
}

/* ...plus NVMe/TCP: nvme_tcp holds nvme_fabrics and nvme_core. */
static void tcp_node(void) {
        host_tree();
        module("t10_pi", -1, HOLDERS("nvme_core"), "");
        module("nvme_core", -1, HOLDERS("nvme", "nvme_fabrics", "nvme_tcp"), "");
        module("nvme_fabrics", -1, HOLDERS("nvme_tcp"), "");
        module("nvme", 0, NULL, "");
        module("nvme_tcp", 0, NULL, "");
        cr_assert_eq(fake_node_add_namespace(node, 0, 1, false, 2), 0);
}

/* proc/modules, sorted: the module state, comparable before and after. */
static char *module_state(void) {
        char path[256], *text, *lines[256], *out;
        size_t n = 0, len = 0;

        snprintf(path, sizeof(path), "%s/proc/modules", root);
        text = slurp(path);
        cr_assert_not_null(text);
        for (char *s = strtok(text, "\n"); s && n < 256; s = strtok(NULL, "\n"))
                lines[n++] = s;
        for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++)
                        if (strcmp(lines[i], lines[j]) > 0) {
                                char *t = lines[i];
                                lines[i] = lines[j];
                                lines[j] = t;
                        }
        for (size_t i = 0; i < n; i++)
                len += strlen(lines[i]) + 1;
        out = calloc(1, len + 1);
        for (size_t i = 0; i < n; i++) {
                strcat(out, lines[i]);
                strcat(out, "\n");
        }
        free(text);
        return out;
}

/* ---- running the CLI ---------------------------------------------------- */

#define RUN(run, script, ...) \
        cr_assert_eq(cli_run(root, script, (const char *const[]) { __VA_ARGS__, NULL }, run), 0)

static struct json_object *parse(const CliRun *r) {
        struct json_object *o = json_tokener_parse(r->out);

        if (!o)
                dump(r);
        cr_assert_not_null(o, "stdout is not JSON");
        return o;
}

static struct json_object *get(struct json_object *o, const char *key) {
        struct json_object *v = NULL;

        cr_assert(json_object_object_get_ex(o, key, &v), "no key \"%s\" in %s", key, json_object_to_json_string(o));
        return v;
}

static struct json_object *find_named(struct json_object *array, const char *name) {
        for (size_t i = 0; i < json_object_array_length(array); i++) {
                struct json_object *e = json_object_array_get_idx(array, i);

                if (strcmp(json_object_get_string(get(e, "name")), name) == 0)
                        return e;
        }
        cr_assert_fail("no \"%s\" in %s", name, json_object_to_json_string(array));
        return NULL;
}

static const char *str(struct json_object *o, const char *key) {
        return json_object_get_string(get(o, key));
}

/* Position of the log line "delete_module <m> ... -> 0", or -1. */
static int removal_index(const char *klog, const char *m) {
        char needle[128];
        const char *p;

        snprintf(needle, sizeof(needle), "delete_module %s flags=", m);
        p = strstr(klog, needle);
        while (p && !strstr(p, "-> 0"))
                p = NULL;
        return p ? (int) (p - klog) : -1;
}

/* The module state is the one taken before the run (before: from
 * module_state(); freed here). */
static void assert_module_state_is(char *before, const char *why) {
        char *after = module_state();

        cr_assert_str_eq(before, after, "%s", why);
        free(before);
        free(after);
}

/* The run made no module call and left the module state as it was. */
static void assert_touched_nothing(const CliRun *r, char *before) {
        cr_assert_eq(count_lines_with(r->klog, "module"), 0, "the kernel was called");
        assert_module_state_is(before, "the module state changed");
}

/* Refused (exit 3), naming each of what blocks it (NULL-terminated), and
 * nothing touched. */
static void assert_refused_untouched(const CliRun *r, char *before, const char *const *named) {
        cr_assert_eq(r->exit_code, 3);
        for (const char *const *s = named; *s; s++)
                cr_assert(strstr(r->out, *s), "blocker not named: %s", *s);
        assert_touched_nothing(r, before);
}

static void assert_never_forced(const char *klog) {
        for (const char *p = strstr(klog, "flags=0x"); p; p = strstr(p + 1, "flags=0x")) {
                unsigned long flags = strtoul(p + 8, NULL, 16);

                cr_assert_eq(flags & O_TRUNC_FLAG, 0, "a call with the force flag: %.60s", p);
        }
}

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

static struct json_object *plan_order(void) {
        CliRun r;
        struct json_object *o, *order;

        RUN(&r, NULL, "plan", "--json");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        o = parse(&r);
        order = json_object_get(get(o, "order"));
        cr_assert(json_object_get_boolean(get(o, "can_run")));
        json_object_put(o);
        cli_run_done(&r);
        return order;
}

static int pos(struct json_object *order, const char *name) {
        for (size_t i = 0; i < json_object_array_length(order); i++)
                if (strcmp(json_object_get_string(json_object_array_get_idx(order, i)), name) == 0)
                        return (int) i;
        return -1;
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
