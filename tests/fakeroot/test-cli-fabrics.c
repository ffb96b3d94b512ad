/* SPDX-License-Identifier: Apache-2.0 */
/* The CLI with NVMe over Fabrics connections, against a fake
 * node and the fake kernel: what check/plan/unload --dry-run say, the
 * record saved before the unload, the refusal of a tree without the
 * transport, the reconnect after load --from and after restore, status, and
 * --json never holding a secret. The transport's removal takes its
 * controllers with it, as on Linux (fake-node-fabrics.h). */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-cli-suite.h"

#define NQN "nqn.2026-12.test:sub"
#define NGUID "0123456789abcdef0123456789abcdef"
#define SECRET "DHHC-1:00:c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTIzNA==:"
#define RECORD "/run/nvme-swapguard-fabrics/record.json"
#define SECRETS "/run/nvme-swapguard-secrets/secrets.json"

static void setup(void) {
        cli_suite_open("cli-fabrics", (const char *const[]) { "SWAPGUARD_KMOD", "FAKE_KERNEL_SO", NULL });
}

TestSuite(cli_fabrics, .init = setup, .fini = cli_suite_close, .timeout = 300);

#define HOLDERS(...) ((const char *const[]) { __VA_ARGS__, NULL })
#define RUN(run, script, ...) \
        cr_assert_eq(cli_run(root, script, (const char *const[]) { __VA_ARGS__, NULL }, run), 0)

static void module(const char *name, int refcnt, const char *const *holders, const char *taint) {
        cr_assert_eq(fake_node_add_module(node, name, refcnt, holders, taint), 0, "module %s", name);
}

static void stack_tree(const char *tree, const char *dir, const char *const *extra, bool with_tcp) {
        char rel[160];

        snprintf(rel, sizeof(rel), "%snvme-core.ko", dir);
        ko(tree, rel, "nvme_core", "", NULL, extra);
        snprintf(rel, sizeof(rel), "%snvme.ko", dir);
        ko(tree, rel, "nvme", "nvme-core", NULL, extra);
        snprintf(rel, sizeof(rel), "%snvme-fabrics.ko", dir);
        ko(tree, rel, "nvme_fabrics", "nvme-core", NULL, extra);
        if (with_tcp) {
                snprintf(rel, sizeof(rel), "%snvme-tcp.ko", dir);
                ko(tree, rel, "nvme_tcp", "nvme-core,nvme-fabrics", NULL, extra);
        }
        cr_assert_eq(fake_node_write_modules_dep(node, tree), 0);
}

static const FakeFabricsNamespace one_ns[] = { { .nsid = 1, .nguid = NGUID } };

/* The in-tree stack, a PCIe drive (nvme0n1) and an NVMe/TCP connection
 * (nvme1, its namespace nvme1n1). */
static void tcp_node(const char *secret) {
        FakeFabrics f = {
                .transport = "tcp", .traddr = "127.0.0.1", .trsvcid = "4420", .subsysnqn = NQN,
                .dhchap_secret = secret, .namespaces = one_ns, .n_namespaces = 1,
        };

        stack_tree(HOST_TREE, NVME_HOST, NULL, true);
        module("nvme_core", -1, HOLDERS("nvme", "nvme_fabrics", "nvme_tcp"), "");
        module("nvme_fabrics", -1, HOLDERS("nvme_tcp"), "");
        module("nvme", 0, NULL, "");
        module("nvme_tcp", 0, NULL, "");
        cr_assert_eq(fake_node_add_namespace(node, 0, 1, false, 0), 0);
        cr_assert_eq(fake_node_add_fabrics_controller(node, 1, &f), 0);
}

/* NVIDIA's build in the driver container, with or without its nvme_tcp. */
static void container(bool with_tcp) {
        stack_tree(CONTAINER_TREE, "extra/mlnx-nvme/host/", HOLDERS("fake_taint=OE"), with_tcp);
}

static bool exists(const char *rel) {
        char path[512];

        snprintf(path, sizeof(path), "%s%s", root, rel);
        return access(path, F_OK) == 0;
}

static char *taint_of(const char *module_name) {
        char path[512];

        snprintf(path, sizeof(path), "%s/sys/module/%s/taint", root, module_name);
        return slurp(path);
}

static void unload(void) {
        CliRun r;

        RUN(&r, NULL, "unload");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        cr_assert(strstr(r.out, "nvme1: tcp 127.0.0.1:4420 " NQN), "the dropped connection is not named");
        cr_assert(exists(RECORD), "no record after the unload");
        cr_assert_not(exists("/sys/class/nvme/nvme1"), "the transport's removal took the controller");
        cr_assert_not(fake_node_module_loaded(node, "nvme_tcp") > 0);
        cli_run_done(&r);
}

Test(cli_fabrics, check_and_dry_run_name_each_connection) {
        const char *line = "nvme1: tcp 127.0.0.1:4420 " NQN ": disconnected by the unload, reconnected after the load";
        CliRun r;
        struct json_object *o, *fab;

        tcp_node(NULL);
        RUN(&r, NULL, "check");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        cr_assert(strstr(r.out, line), "check does not say what the unload does");
        cli_run_done(&r);
        RUN(&r, NULL, "plan");
        cr_assert(strstr(r.out, line));
        cli_run_done(&r);
        RUN(&r, NULL, "unload", "--dry-run", "--json");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        o = json_tokener_parse(r.out);
        cr_assert(json_object_object_get_ex(o, "fabrics", &fab));
        cr_assert(strstr(json_object_to_json_string(json_object_object_get(fab, "plan")), "disconnected by the unload"));
        cr_assert_eq(json_object_array_length(json_object_object_get(fab, "connections")), 1);
        json_object_put(o);
        cr_assert_not(exists(RECORD), "a dry run saves no record");
        cr_assert_eq(count_lines_with(r.klog, "module"), 0);
        cli_run_done(&r);
}

Test(cli_fabrics, unload_then_load_reconnects_on_the_container_transport) {
        CliRun r;
        char *taint;

        tcp_node(NULL);
        container(true);
        unload();
        RUN(&r, NULL, "status");
        dump(&r);
        cr_assert(strstr(r.out, "Fabrics record pending"), "status does not show the pending record");
        cr_assert(strstr(r.out, "nvme1: tcp 127.0.0.1:4420 " NQN));
        cli_run_done(&r);

        RUN(&r, NULL, "load", "--from", CONTAINER_TREE);
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        cr_assert(strstr(r.klog, "init_module nvme_tcp flags=0x0 -> 0"), "the transport was not loaded");
        cr_assert(strstr(r.klog, "connect nqn=" NQN ",transport=tcp,traddr=127.0.0.1,trsvcid=4420,"));
        cr_assert(strstr(r.out, "reconnected as nvme1"), "the reconnect is not reported");
        cr_assert(exists("/sys/class/block/nvme1n1"), "the namespace is not back");
        taint = taint_of("nvme_tcp");
        cr_assert(taint && strstr(taint, "O"), "nvme_tcp is not the container's (taint %s)", taint ?: "?");
        free(taint);
        cr_assert_not(exists(RECORD), "the record stays although everything is back");
        cli_run_done(&r);

        RUN(&r, NULL, "status", "--json");
        cr_assert(strstr(r.out, "\"subsysnqn\":\"" NQN "\"") || strstr(r.out, "\"subsysnqn\": \"" NQN "\""));
        cr_assert(strstr(r.out, "\"record\": null") || strstr(r.out, "\"record\":null"));
        cli_run_done(&r);
}

Test(cli_fabrics, load_refuses_a_tree_without_the_transport) {
        CliRun r;

        tcp_node(NULL);
        container(false);
        unload();
        RUN(&r, NULL, "load", "--from", CONTAINER_TREE);
        dump(&r);
        cr_assert_eq(r.exit_code, 3);
        cr_assert(strstr(r.err, "has no nvme_tcp"), "the transport is not named");
        cr_assert(strstr(r.err, "nvme1: tcp 127.0.0.1:4420 " NQN), "the connection is not named");
        cr_assert(strstr(r.err, "restore"), "no remedy");
        cr_assert_eq(count_lines_with(r.klog, "init_module"), 0, "something was loaded");
        cr_assert(exists(RECORD), "the record must wait for a load that can serve it");
        cli_run_done(&r);

        /* Not unloaded yet: the live connection counts the same. */
        RUN(&r, NULL, "restore");
        cr_assert_eq(r.exit_code, 0);
        cli_run_done(&r);
}

Test(cli_fabrics, restore_reconnects_on_the_in_tree_transport) {
        CliRun r;
        struct json_object *o, *fab, *rec;

        tcp_node(NULL);
        unload();
        RUN(&r, NULL, "restore", "--json");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        o = json_tokener_parse(r.out);
        cr_assert_not_null(o);
        cr_assert(json_object_object_get_ex(o, "fabrics", &fab));
        rec = json_object_object_get(fab, "reconnect");
        cr_assert_eq(json_object_get_int(json_object_object_get(rec, "exit")), 0);
        rec = json_object_array_get_idx(json_object_object_get(rec, "connections"), 0);
        cr_assert_str_eq(json_object_get_string(json_object_object_get(rec, "outcome")), "back");
        cr_assert_str_eq(json_object_get_string(json_object_object_get(rec, "controller")), "nvme1");
        json_object_put(o);
        cr_assert(strstr(r.klog, "init_module nvme_tcp flags=0x0 -> 0"));
        cr_assert_not(exists(RECORD));
        cli_run_done(&r);
}

Test(cli_fabrics, connection_not_back_keeps_the_record_and_fails) {
        CliRun r;

        tcp_node(NULL);
        unload();
        RUN(&r, "connect " NQN " ECONNREFUSED\n", "restore");
        dump(&r);
        cr_assert_eq(r.exit_code, 1);
        cr_assert(strstr(r.out, "nvme1: tcp 127.0.0.1:4420 " NQN ": not back (refused: Connection refused"),
                  "the address and the kernel's error are not named");
        cr_assert(strstr(r.out, "the kernel: nvme nvme9: failed to connect socket: -111"),
                  "the kernel's own message is not passed on");
        cr_assert(exists(RECORD), "the record goes although the connection is not back");
        cr_assert(loaded("nvme") && loaded("nvme_tcp"), "the stack itself is loaded");
        cli_run_done(&r);

        /* The target answers again: a second restore brings it back. */
        RUN(&r, NULL, "restore");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        cr_assert(strstr(r.out, "reconnected as nvme1"));
        cr_assert_not(exists(RECORD));
        cli_run_done(&r);
}

Test(cli_fabrics, secrets_stay_out_of_json_and_the_record) {
        CliRun r;
        char path[512], *record;

        tcp_node(SECRET);
        RUN(&r, NULL, "status", "--json");
        cr_assert_null(strstr(r.out, "DHHC"), "a secret in status --json");
        cr_assert(strstr(r.out, "\"dhchap_secret\": true") || strstr(r.out, "\"dhchap_secret\":true"));
        cli_run_done(&r);
        RUN(&r, NULL, "unload", "--json");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        cr_assert_null(strstr(r.out, "DHHC"), "a secret in unload --json");
        cr_assert_null(strstr(r.err, "DHHC"));
        cli_run_done(&r);
        snprintf(path, sizeof(path), "%s%s", root, RECORD);
        record = slurp(path);
        cr_assert_null(strstr(record, "DHHC"), "a secret in the record");
        free(record);
        cr_assert(exists(SECRETS));
        RUN(&r, NULL, "restore", "--json");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        cr_assert_null(strstr(r.out, "DHHC"), "a secret in restore --json");
        cr_assert(strstr(r.klog, "dhchap_secret=" SECRET), "the secret did not reach the kernel");
        cr_assert_not(exists(SECRETS), "the secrets outlive the record");
        cli_run_done(&r);
}

Test(cli_fabrics, mounted_fabrics_namespace_blocks_and_keeps_no_record) {
        CliRun r;

        tcp_node(NULL);
        cr_assert_eq(fake_node_add_mount(node, "nvme1n1", "/data", "xfs"), 0);
        RUN(&r, NULL, "unload");
        dump(&r);
        cr_assert_eq(r.exit_code, 3);
        cr_assert(strstr(r.out, "nvme1n1") && strstr(r.out, "/data"));
        cr_assert_eq(count_lines_with(r.klog, "delete_module"), 0);
        cr_assert_not(exists(RECORD), "nothing was dropped: no record");
        cr_assert(exists("/sys/class/nvme/nvme1"));
        cli_run_done(&r);
}

Test(cli_fabrics, a_second_unload_keeps_the_pending_connections_and_their_secrets) {
        FakeFabrics b = {
                .transport = "tcp", .traddr = "127.0.0.1", .trsvcid = "4421", .subsysnqn = "nqn.2026-12.test:b",
                .namespaces = one_ns, .n_namespaces = 1,
        };
        CliRun r;
        char path[512], *record;

        tcp_node(SECRET);
        cr_assert_eq(fake_node_add_fabrics_controller(node, 2, &b), 0);
        unload();
        /* nvme1's target does not answer: only nqn...:b comes back */
        RUN(&r, "connect " NQN " ECONNREFUSED\n", "restore");
        dump(&r);
        cr_assert_eq(r.exit_code, 1);
        cr_assert(strstr(r.out, "nqn.2026-12.test:b: reconnected as"));
        cli_run_done(&r);

        RUN(&r, NULL, "unload");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        cli_run_done(&r);
        snprintf(path, sizeof(path), "%s%s", root, RECORD);
        record = slurp(path);
        cr_assert(strstr(record, NQN "\"") && strstr(record, "nqn.2026-12.test:b"),
                  "the second unload forgot the pending connection:\n%s", record);
        free(record);

        RUN(&r, NULL, "restore");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        cr_assert_eq(count_lines_with(r.out, ": reconnected as"), 2);
        cr_assert(strstr(r.klog, "nqn=" NQN ",") && strstr(r.klog, "dhchap_secret=" SECRET),
                  "the pending connection's secret was lost");
        cr_assert_not(exists(RECORD));
        cr_assert_not(exists(SECRETS));
        cli_run_done(&r);
}

Test(cli_fabrics, a_bad_record_is_named_by_file_and_field) {
        CliRun r;
        char path[512];
        FILE *f;

        tcp_node(NULL);
        snprintf(path, sizeof(path), "%s/run/nvme-swapguard-fabrics", root);
        mkdir(path, 0755);
        snprintf(path, sizeof(path), "%s%s", root, RECORD);
        f = fopen(path, "we");
        cr_assert_not_null(f);
        fputs("{\"version\":2,\"connections\":[{\"old_name\":\"nvme1\",\"transport\":\"tcp\",\"subsysnqn\":\"n\","
              "\"state\":\"pending\",\"keep_alive_tmo\":\"soon\",\"namespaces\":[]}]}", f);
        fclose(f);
        RUN(&r, NULL, "status");
        dump(&r);
        cr_assert_eq(r.exit_code, 0, "a bad record does not hide the node's state");
        cr_assert(strstr(r.out, "record.json: connections[0].keep_alive_tmo: not a number, \"off\" or null"),
                  "the file and the field are not named");
        cr_assert(strstr(r.err, "connections[0].keep_alive_tmo"));
        cli_run_done(&r);
        /* a writer keeps it aside, never overwrites it */
        RUN(&r, NULL, "fabrics", "capture");
        dump(&r);
        cr_assert_eq(r.exit_code, 1);
        cr_assert(strstr(r.err, "record.json: connections[0].keep_alive_tmo") && strstr(r.err, "kept as "), "%s", r.err);
        cr_assert(exists(RECORD ".corrupt"));
        cli_run_done(&r);
}

Test(cli_fabrics, a_failed_unload_that_dropped_connections_reconnects_at_once) {
        CliRun r;

        tcp_node(NULL);
        /* nvme_core is last: nvme_tcp (and its connection) went before the failure */
        RUN(&r, "delete_module nvme_core EAGAIN always\n", "unload");
        dump(&r);
        cr_assert_eq(r.exit_code, 1);
        cr_assert(strstr(r.klog, "delete_module nvme_tcp flags=0x800 -> 0"));
        cr_assert(strstr(r.klog, "init_module nvme_tcp flags=0x0 -> 0"), "the transport was not put back");
        cr_assert(strstr(r.klog, "connect nqn=" NQN ","), "the dropped connection was not reconnected");
        cr_assert(strstr(r.out, "nvme1: tcp 127.0.0.1:4420 " NQN ": reconnected as nvme1"));
        cr_assert(exists("/sys/class/block/nvme1n1"));
        cr_assert_not(exists(RECORD), "everything is back: no record");
        cli_run_done(&r);
}

/* The fabrics verbs the connect unit and an operator run: the result in
 * the kernel's terms, the exit codes, and never a secret on stdout/stderr. */
/* The wall clock in usec, as the CLI reads it without a fake time. */
static uint64_t cli_fabrics_now_for_tests(void) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

Test(cli_fabrics, fabrics_verbs_never_print_a_secret) {
        CliRun r;
        char path[512];
        FILE *f;

        tcp_node(SECRET);
        RUN(&r, NULL, "fabrics", "capture", "--json");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        cr_assert(strstr(r.out, "\"outcome\":\"captured\"") || strstr(r.out, "\"outcome\": \"captured\""), "%s", r.out);
        cr_assert_null(strstr(r.out, "DHHC"));
        cr_assert_null(strstr(r.err, "DHHC"));
        cli_run_done(&r);
        unload();
        RUN(&r, NULL, "fabrics", "connect");
        dump(&r);
        cr_assert_eq(r.exit_code, 2, "its transport is not loaded yet");
        cr_assert(strstr(r.out, "not tried: its transport module is not loaded"), "%s", r.out);
        cli_run_done(&r);
        /* the new build's stack, as load --from leaves it */
        module("nvme_core", -1, HOLDERS("nvme_fabrics", "nvme_tcp"), "");
        module("nvme_fabrics", -1, HOLDERS("nvme_tcp"), "");
        module("nvme_tcp", 0, NULL, "");
        RUN(&r, "connect " NQN " EKEYREJECTED\n", "fabrics", "connect");
        dump(&r);
        cr_assert_eq(r.exit_code, 2, "pending: tried again later");
        cr_assert(strstr(r.out, ": not back (auth:"), "%s", r.out);
        cr_assert_null(strstr(r.out, "DHHC"));
        cr_assert_null(strstr(r.err, "DHHC"));
        cli_run_done(&r);
        snprintf(path, sizeof(path), "%s/run/nvme-swapguard", root);
        mkdir(path, 0755);
        snprintf(path, sizeof(path), "%s/run/nvme-swapguard/fabrics-request", root);
        /* The daemon's request right after that failure: its next try is
         * not due, so nothing is sent (a request never brings it forward). */
        f = fopen(path, "we");
        fputs("verb=connect\ntoken=4\n", f);
        fclose(f);
        RUN(&r, NULL, "fabrics", "serve-request", "/run/nvme-swapguard/fabrics-request");
        dump(&r);
        cr_assert_eq(r.exit_code, 2, "pending");
        cr_assert(strstr(r.out, "not tried: its next try is not due yet"), "%s", r.out);
        cr_assert_eq(count_lines_with(r.klog, "connect nqn="), 0, "a connect before its next try");
        cli_run_done(&r);
        /* ... and once it is due (the record's reconnect_delay is 10 s), it is tried */
        f = fopen(path, "we");
        fputs("verb=connect\ntoken=5\n", f);
        fclose(f);
        {
                char later[32];

                snprintf(later, sizeof(later), "%llu", (unsigned long long) cli_fabrics_now_for_tests() + 11000000ULL);
                cr_assert_eq(setenv("NVME_SWAPGUARD_FAKE_NOW_USEC", later, 1), 0);
        }
        RUN(&r, NULL, "fabrics", "serve-request", "/run/nvme-swapguard/fabrics-request");
        unsetenv("NVME_SWAPGUARD_FAKE_NOW_USEC");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        cr_assert(strstr(r.out, "reconnected as nvme1"), "%s", r.out);
        cr_assert(strstr(r.klog, "dhchap_secret=" SECRET " -> 0 not-dumpable"),
                  "the secret did not reach the kernel, or from a dumpable process");
        cr_assert_null(strstr(r.out, "DHHC"));
        cr_assert_null(strstr(r.err, "DHHC"));
        cr_assert_not(exists(SECRETS));
        cr_assert_not(exists("/run/nvme-swapguard/fabrics-request"));
        cr_assert(exists("/run/nvme-swapguard-fabrics/result.json"));
        cli_run_done(&r);
        RUN(&r, NULL, "fabrics", "serve-request", "relative");
        cr_assert_eq(r.exit_code, 1);
        cli_run_done(&r);
        RUN(&r, NULL, "fabrics", "forget");
        cr_assert_eq(r.exit_code, 0);
        cli_run_done(&r);
}

/* What another process may have put where /dev/nvme-fabrics was: the
 * connect refuses it, names the path and what is there, and writes nothing
 * (the fake kernel logs every write to its device; a FIFO's or a link
 * target's content shows any other). */
static void device_replaced(bool fifo) {
        char dev[512], target[512], *content;
        CliRun r;

        tcp_node(SECRET);
        unload();
        /* the stack back, the connect's turn; then the swap */
        module("nvme_core", -1, HOLDERS("nvme_fabrics", "nvme_tcp"), "");
        module("nvme_fabrics", -1, HOLDERS("nvme_tcp"), "");
        module("nvme_tcp", 0, NULL, "");
        snprintf(dev, sizeof(dev), "%s/dev/nvme-fabrics", root);
        snprintf(target, sizeof(target), "%s/dev/disk-standin", root);
        cr_assert_eq(unlink(dev), 0);
        if (fifo)
                cr_assert_eq(mkfifo(dev, 0600), 0);
        else {
                FILE *f = fopen(target, "we");

                cr_assert_not_null(f);
                fclose(f);
                cr_assert_eq(symlink("disk-standin", dev), 0);
        }
        RUN(&r, NULL, "fabrics", "connect");
        dump(&r);
        cr_assert_eq(r.exit_code, 2, "pending, not connected");
        cr_assert(strstr(r.out, fifo ? "/dev/nvme-fabrics is a FIFO, not the kernel's nvme-fabrics device 10:122: nothing written"
                                     : "/dev/nvme-fabrics is a symbolic link, not the kernel's nvme-fabrics device 10:122: nothing written"),
                  "%s", r.out);
        cr_assert_eq(count_lines_with(r.klog, "connect nqn="), 0, "a write reached the fake device");
        cr_assert_null(strstr(r.out, "DHHC"));
        if (!fifo) {
                content = slurp(target);
                cr_assert_str_eq(content, "", "the link's target was written: %s", content);
                free(content);
        }
        cr_assert(exists(SECRETS), "the secrets stay for the next try");
        cli_run_done(&r);
}

Test(cli_fabrics, a_fifo_at_the_device_path_gets_nothing) {
        device_replaced(true);
}

Test(cli_fabrics, a_symlink_at_the_device_path_is_not_followed) {
        device_replaced(false);
}

/* A request that is not a small regular file is removed unread and
 * answered in result.json: never left for the path unit to start the
 * service on again and again until its start limit. */
Test(cli_fabrics, a_request_that_is_no_file_is_removed_and_answered) {
        const char *kinds[] = { "directory", "FIFO", "symbolic link", "over 4 KiB" };
        char dir[1024], path[1024 + 32], inner[1024 + 64], *result;
        CliRun r;

        snprintf(dir, sizeof(dir), "%s/run/nvme-swapguard", root);
        mkdir(dir, 0755);
        snprintf(path, sizeof(path), "%s/fabrics-request", dir);
        for (size_t i = 0; i < 4; i++) {
                if (i == 0) {
                        cr_assert_eq(mkdir(path, 0755), 0);
                        snprintf(inner, sizeof(inner), "%s/inner", path);
                        cr_assert_eq(mkdir(inner, 0755), 0);
                } else if (i == 1)
                        cr_assert_eq(mkfifo(path, 0600), 0);
                else if (i == 2)
                        cr_assert_eq(symlink("/etc/passwd", path), 0);
                else {
                        FILE *f = fopen(path, "we");

                        cr_assert_not_null(f);
                        fputs("verb=connect\ntoken=1\n", f);
                        for (int k = 0; k < 5000; k++)
                                fputc('#', f);
                        fclose(f);
                }
                RUN(&r, NULL, "fabrics", "serve-request", "/run/nvme-swapguard/fabrics-request");
                dump(&r);
                cr_assert_eq(r.exit_code, 1, "%s", kinds[i]);
                cr_assert_not(exists("/run/nvme-swapguard/fabrics-request"), "the %s is still there", kinds[i]);
                cr_assert(strstr(r.err, kinds[i]) && strstr(r.err, "removed unread"), "%s: %s", kinds[i], r.err);
                cli_run_done(&r);
                snprintf(dir, sizeof(dir), "%s/run/nvme-swapguard-fabrics/result.json", root);
                result = slurp(dir);
                cr_assert(result && strstr(result, "removed unread"), "not answered: %s", result ?: "(none)");
                free(result);
        }
}

/* A secrets.json where earlier versions kept it (a directory the daemon
 * can traverse) is moved into the 0700 one, and the connect still has it. */
Test(cli_fabrics, an_old_secrets_file_moves_and_is_not_lost) {
        char old[512], dir[512];
        struct stat st;
        CliRun r;

        tcp_node(SECRET);
        unload();
        snprintf(old, sizeof(old), "%s/run/nvme-swapguard-fabrics/secrets.json", root);
        snprintf(dir, sizeof(dir), "%s%s", root, SECRETS);
        cr_assert_eq(rename(dir, old), 0, "as an earlier version left it");
        RUN(&r, NULL, "restore");
        dump(&r);
        cr_assert_eq(r.exit_code, 0);
        cr_assert(strstr(r.klog, "dhchap_secret=" SECRET " -> 0"), "the moved secret did not reach the kernel");
        cr_assert_not(exists("/run/nvme-swapguard-fabrics/secrets.json"), "the old file stays");
        cli_run_done(&r);
        snprintf(dir, sizeof(dir), "%s/run/nvme-swapguard-secrets", root);
        cr_assert_eq(stat(dir, &st), 0);
        cr_assert_eq(st.st_mode & 07777, 0700, "the secrets directory is %o", st.st_mode & 07777);
}

/* An nvme_fabrics that does not list an option: left out and named, never
 * sent (the kernel would log it with its value, a secret included). */
Test(cli_fabrics, an_option_the_module_does_not_know_is_left_out) {
        char dev[512];
        FILE *f;
        CliRun r;

        tcp_node(SECRET);
        unload();
        module("nvme_core", -1, HOLDERS("nvme_fabrics", "nvme_tcp"), "");
        module("nvme_fabrics", -1, HOLDERS("nvme_tcp"), "");
        module("nvme_tcp", 0, NULL, "");
        /* the stand-in's content is the listing the fake kernel answers with */
        snprintf(dev, sizeof(dev), "%s/dev/nvme-fabrics", root);
        f = fopen(dev, "we");
        cr_assert_not_null(f);
        fputs("instance=-1,cntlid=-1,transport=%s,traddr=%s,trsvcid=%s,nqn=%s,queue_size=%d,nr_io_queues=%d,"
              "reconnect_delay=%d,ctrl_loss_tmo=%d,keep_alive_tmo=%d,hostnqn=%s,host_traddr=%s,host_iface=%s,"
              "hostid=%s,hdr_digest,data_digest,fast_io_fail_tmo=%d\n", f);
        fclose(f);
        RUN(&r, NULL, "fabrics", "connect", "--json");
        dump(&r);
        cr_assert_null(strstr(r.klog, "DHHC"), "a secret the module does not know was sent: %s", r.klog);
        cr_assert(strstr(r.klog, "connect nqn=" NQN), "no connect at all: %s", r.klog);
        cr_assert(strstr(r.out, "left out, unknown to the loaded nvme_fabrics: dhchap_secret"), "%s", r.out);
        cr_assert_null(strstr(r.out, "DHHC"));
        cli_run_done(&r);
}
