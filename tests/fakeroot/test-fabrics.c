/* SPDX-License-Identifier: Apache-2.0 */
/* The fabrics library against a fake node and the fake kernel (this
 * process runs with fake-kernel.so preloaded, see meson.build): the
 * topology read from the kernel's sysfs layout, the capture and connect
 * passes (record, secrets, lock, retry plan, result.json) through
 * /dev/nvme-fabrics after the transport module took the controllers with
 * it, serve-request, and the build check. Time is passed in: nothing waits. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actions/fabrics-build-check.h"
#include "actions/fabrics-capture.h"
#include "actions/fabrics-reconnect.h"
#include "actions/fabrics-request.h"
#include "actions/fabrics-result.h"
#include "fake-cli-suite.h"
#include "host/host-root.h"
#include "nvme/fabrics-lock.h"
#include "nvme/fabrics-record.h"
#include "nvme/fabrics-topology-sysfs.h"
#include "util/fileio.h"
#include "util/json-util.h"
#include "util/strv.h"

#define NQN "nqn.2026-12.test:sub"
#define NGUID "0123456789abcdef0123456789abcdef"

static void setup(void) {
        cli_suite_open("fabrics", (const char *const[]) { "FAKE_KERNEL_SO", NULL });
        cr_assert_eq(host_root_set(root), 0);
        cr_assert_eq(setenv("FAKE_KERNEL_ROOT", root, 1), 0);
        cr_assert_eq(fake_node_add_module(node, "nvme_core", -1, (const char *const[]) { "nvme_fabrics", "nvme_tcp", NULL }, ""), 0);
        cr_assert_eq(fake_node_add_module(node, "nvme_fabrics", -1, (const char *const[]) { "nvme_tcp", NULL }, ""), 0);
        cr_assert_eq(fake_node_add_module(node, "nvme_tcp", 0, NULL, ""), 0);
}

static void teardown(void) {
        host_root_set(NULL);
        cli_suite_close();
}

TestSuite(fabrics_node, .init = setup, .fini = teardown, .timeout = 300);

static const FakeFabricsNamespace one_ns[] = { { .nsid = 1, .nguid = NGUID, .uuid = NULL } };

static void tcp(unsigned ctrl, const char *port, const char *secret) {
        FakeFabrics f = {
                .transport = "tcp", .traddr = "127.0.0.1", .trsvcid = port, .subsysnqn = NQN,
                .ctrl_loss_tmo = "off", .kato = "7", .queue_count = 3, .sqsize = 63,
                .dhchap_secret = secret, .namespaces = one_ns, .n_namespaces = 1,
        };

        cr_assert_eq(fake_node_add_fabrics_controller(node, ctrl, &f), 0);
}

static FabricsTopology *read_topology(void) {
        FabricsTopology *t = NULL;

        cr_assert_eq(fabrics_topology_read(&t), 0);
        return t;
}

Test(fabrics_node, topology_from_sysfs) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = NULL;
        const FabricsController *c;

        cr_assert_eq(fake_node_add_namespace(node, 0, 1, false, 0), 0); /* a PCIe drive: not fabrics */
        tcp(1, "4420", NULL);
        t = read_topology();
        cr_assert_eq(t->n_controllers, 1);
        c = &t->controllers[0];
        cr_assert_str_eq(c->name, "nvme1");
        cr_assert_str_eq(c->transport, "tcp");
        cr_assert_str_eq(c->traddr, "127.0.0.1");
        cr_assert_str_eq(c->trsvcid, "4420");
        cr_assert_null(c->host_traddr, "src_addr is not host_traddr");
        cr_assert_str_eq(c->subsysnqn, NQN);
        cr_assert_not_null(c->hostnqn);
        cr_assert_str_eq(c->state, "live");
        cr_assert_eq(c->ctrl_loss_tmo, FABRICS_OPT_OFF);
        cr_assert_eq(c->reconnect_delay, 10);
        cr_assert_eq(c->fast_io_fail_tmo, FABRICS_OPT_OFF);
        cr_assert_eq(c->kato, 7);
        cr_assert_eq(c->nr_io_queues, 2, "queue_count 3 is the admin queue and two I/O queues");
        cr_assert_eq(c->queue_size, 64, "sqsize is 0's based");
        cr_assert_not(c->dhchap_secret);
        cr_assert_not(c->tls);
        cr_assert_eq(c->n_namespaces, 1);
        cr_assert_str_eq(c->namespaces[0].name, "nvme1n1", "the head, not the hidden path nvme1c1n1");
        cr_assert_eq(c->namespaces[0].nsid, 1);
        cr_assert_str_eq(c->namespaces[0].nguid, NGUID);
        cr_assert_null(c->namespaces[0].uuid);
}

/* 6.7-6.11 show an empty tls_key on every tcp controller: not TLS. */
Test(fabrics_node, empty_tls_key_is_not_tls) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = NULL;
        FakeFabrics f = { .transport = "tcp", .traddr = "127.0.0.1", .trsvcid = "4420", .subsysnqn = NQN,
                          .tls_key_empty = true };

        cr_assert_eq(fake_node_add_fabrics_controller(node, 1, &f), 0);
        t = read_topology();
        cr_assert_not(t->controllers[0].tls);
}

/* ---- the passes: time is passed in, never waited for -------------------- */

#define T0 1700000000000000ull /* a CLOCK_REALTIME usec */
#define SEC 1000000ull
#define SECRET_A "DHHC-1:00:c2VjcmV0QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB:"
#define SECRET_B "DHHC-1:00:c2VjcmV0QkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJC:"

static char *root_file(const char *rel) {
        char path[512];

        snprintf(path, sizeof(path), "%s%s", root, rel);
        return slurp(path);
}

static bool root_exists(const char *rel) {
        char path[512];

        snprintf(path, sizeof(path), "%s%s", root, rel);
        return access(path, F_OK) == 0;
}

static char *kernel_log_path(void) {
        static char log[512];

        snprintf(log, sizeof(log), "%s/../kernel.log", root);
        return log;
}

static void script(const char *rules) {
        char path[512];
        FILE *f;

        snprintf(path, sizeof(path), "%s/../fabrics.script", root);
        f = fopen(path, "we");
        cr_assert_not_null(f);
        fputs(rules, f);
        fclose(f);
        cr_assert_eq(setenv("FAKE_KERNEL_SCRIPT", path, 1), 0);
}

static FabricsPassResult *capture(uint64_t now) {
        FabricsPassResult *r = NULL;

        cr_assert_eq(fabrics_capture_pass(now, &r), 0);
        cr_assert_null(r->error, "%s", r->error);
        return r;
}

static FabricsPassResult *connect_at(uint64_t now) {
        FabricsPassResult *r = NULL;

        setenv("FAKE_KERNEL_LOG", kernel_log_path(), 1);
        cr_assert_eq(fabrics_connect_pass(now, &r), 0);
        unsetenv("FAKE_KERNEL_LOG");
        return r;
}

/* What the unload does: the transport's removal deletes its controllers;
 * then the new build's transport is loaded. */
static void swap_tcp(void) {
        cr_assert_eq(fake_node_fabrics_module_removed(node, "nvme_tcp"), 0);
        cr_assert_eq(fake_node_module_removed(node, "nvme_tcp"), 0);
        cr_assert_eq(fake_node_add_module(node, "nvme_tcp", 0, NULL, "O"), 0);
}

static json_object *result_json(const FabricsPassResult *r, uint64_t token) {
        json_object *o = NULL;
        char *text;

        cr_assert_eq(fabrics_result_write(r, r->verb, token, T0, NULL), 0);
        text = root_file(FABRICS_RESULT_PATH);
        o = json_tokener_parse(text);
        free(text);
        cr_assert_not_null(o);
        return o;
}

static const char *conn_str(json_object *o, size_t i, const char *key) {
        json_object *c = json_object_array_get_idx(json_object_object_get(o, "connections"), i);

        return json_get_string(c, key);
}

static int64_t conn_int(json_object *o, size_t i, const char *key) {
        json_object *c = json_object_array_get_idx(json_object_object_get(o, "connections"), i);

        return json_get_int64(c, key);
}

Test(fabrics_node, capture_then_connect_back) {
        _cleanup_(fabrics_pass_result_freep) FabricsPassResult *c = NULL, *r = NULL;
        _cleanup_free_ char *record = NULL, *secrets = NULL, *klog = NULL;
        json_object *o;
        struct stat st;
        char path[512];

        cr_assert_eq(fake_node_add_namespace(node, 0, 1, false, 0), 0); /* a PCIe drive keeps nvme0 */
        tcp(1, "4420", SECRET_A);
        c = capture(T0);
        cr_assert_eq(c->exit_code, FABRICS_EXIT_OK);
        cr_assert_eq(c->entries[0].outcome, FABRICS_OUTCOME_CAPTURED);
        record = root_file(FABRICS_RECORD_PATH);
        cr_assert_not_null(record);
        cr_assert_null(strstr(record, "DHHC"), "the record never holds a secret");
        cr_assert_not_null(strstr(record, "\"has_dhchap\":true"), "%s", record);
        cr_assert_not_null(strstr(record, "\"state\":\"pending\""), "%s", record);
        snprintf(path, sizeof(path), "%s%s", root, FABRICS_SECRETS_PATH);
        cr_assert_eq(stat(path, &st), 0);
        cr_assert_eq(st.st_mode & 0777, 0600);
        secrets = slurp(path);
        cr_assert_not_null(strstr(secrets, SECRET_A));
        swap_tcp();
        r = connect_at(T0 + 5 * SEC);
        cr_assert_eq(r->exit_code, FABRICS_EXIT_OK, "%s", r->entries[0].message ?: "");
        cr_assert_eq(r->entries[0].outcome, FABRICS_OUTCOME_BACK);
        cr_assert_str_eq(r->entries[0].controller, "nvme1");
        klog = slurp(kernel_log_path());
        cr_assert_not_null(strstr(klog, ",queue_size=64,keep_alive_tmo=7,reconnect_delay=10,ctrl_loss_tmo=-1,"
                                        "dhchap_secret=" SECRET_A " -> 0"), "%s", klog);
        cr_assert_not(root_exists(FABRICS_RECORD_PATH), "nothing left: the record goes");
        cr_assert_not(root_exists(FABRICS_SECRETS_PATH), "and its secrets");
        o = result_json(r, 42);
        cr_assert_eq(json_get_int64(o, "token"), 42);
        cr_assert_str_eq(json_get_string(o, "verb"), "connect");
        cr_assert_eq(json_get_int64(o, "exit"), 0);
        cr_assert_str_eq(conn_str(o, 0, "outcome"), "back");
        cr_assert_str_eq(conn_str(o, 0, "controller"), "nvme1");
        cr_assert_str_eq(conn_str(o, 0, "old_name"), "nvme1");
        cr_assert_eq(conn_int(o, 0, "next_try_usec"), 0);
        json_object_put(o);
}

/* The kernel's answers, each in its own terms, and the retry plan. */
Test(fabrics_node, failures_by_kind_and_retry_plan) {
        _cleanup_(fabrics_pass_result_freep) FabricsPassResult *c = NULL, *r = NULL;
        _cleanup_(fabrics_topology_freep) FabricsTopology *rec = NULL;
        json_object *o;
        const char *nqns[] = { "nqn.2026-12.test:refused", "nqn.2026-12.test:silent", "nqn.2026-12.test:auth" };

        for (size_t i = 0; i < 3; i++) {
                FakeFabrics f = { .transport = "tcp", .traddr = "127.0.0.1", .trsvcid = "4420", .subsysnqn = nqns[i] };

                cr_assert_eq(fake_node_add_fabrics_controller(node, (unsigned) i + 1, &f), 0);
        }
        c = capture(T0);
        swap_tcp();
        /* nothing listens; accepted and no ICResp within the kernel's 10 s; DH-HMAC-CHAP refused */
        script("connect nqn.2026-12.test:refused ECONNREFUSED\nconnect nqn.2026-12.test:silent EAGAIN\n"
               "connect nqn.2026-12.test:auth EKEYREJECTED\n");
        r = connect_at(T0 + 2 * SEC);
        unsetenv("FAKE_KERNEL_SCRIPT");
        cr_assert_eq(r->exit_code, FABRICS_EXIT_PENDING);
        cr_assert_eq(r->connections->n_controllers, 3);
        for (size_t i = 0; i < 3; i++) {
                cr_assert_eq(r->entries[i].outcome, FABRICS_OUTCOME_FAILED);
                cr_assert_eq(r->entries[i].next_try_usec, T0 + 12 * SEC, "reconnect_delay after this try");
                cr_assert_eq(r->entries[i].give_up_at_usec, T0 + 602 * SEC, "lost when first found not live");
        }
        cr_assert_eq(r->entries[0].error_kind, FABRICS_ERROR_REFUSED);
        cr_assert_eq(r->entries[1].error_kind, FABRICS_ERROR_NO_ANSWER);
        cr_assert_eq(r->entries[2].error_kind, FABRICS_ERROR_AUTH);
        o = result_json(r, 7);
        cr_assert_eq(json_get_int64(o, "exit"), 2);
        cr_assert_str_eq(conn_str(o, 0, "error_kind"), "refused");
        cr_assert_str_eq(conn_str(o, 1, "error_kind"), "no-answer");
        cr_assert_str_eq(conn_str(o, 2, "error_kind"), "auth");
        cr_assert_eq(conn_int(o, 1, "errno"), EAGAIN);
        cr_assert_str_eq(conn_str(o, 0, "outcome"), "failed");
        json_object_put(o);
        cr_assert_eq(fabrics_record_load(&rec, NULL), 0);
        cr_assert_eq(rec->n_controllers, 3);
        cr_assert_eq(rec->controllers[0].entry.attempts, 1);
        cr_assert_eq(rec->controllers[0].entry.lost_at, T0 + 2 * SEC);
        cr_assert_eq(rec->controllers[1].entry.last_errno, EAGAIN);
}

Test(fabrics_node, lost_after_ctrl_loss_tmo) {
        _cleanup_(fabrics_pass_result_freep) FabricsPassResult *c = NULL, *r1 = NULL, *r2 = NULL, *r3 = NULL, *r4 = NULL;
        _cleanup_free_ char *klog = NULL;
        json_object *o;
        FakeFabrics f = { .transport = "tcp", .traddr = "127.0.0.1", .trsvcid = "4420", .subsysnqn = NQN,
                          .ctrl_loss_tmo = "60", .reconnect_delay = "20" };

        cr_assert_eq(fake_node_add_fabrics_controller(node, 1, &f), 0);
        c = capture(T0);
        swap_tcp();
        script("connect " NQN " ECONNREFUSED always\n");
        r1 = connect_at(T0 + SEC);
        cr_assert_eq(r1->exit_code, FABRICS_EXIT_PENDING);
        cr_assert_eq(r1->entries[0].next_try_usec, T0 + 21 * SEC);
        cr_assert_eq(r1->entries[0].give_up_at_usec, T0 + 61 * SEC);
        r2 = connect_at(T0 + 50 * SEC);
        cr_assert_eq(r2->entries[0].next_try_usec, T0 + 61 * SEC, "the last try at the give-up time, not after");
        r3 = connect_at(T0 + 61 * SEC);
        cr_assert_eq(r3->exit_code, FABRICS_EXIT_LOST);
        cr_assert_eq(r3->entries[0].outcome, FABRICS_OUTCOME_LOST);
        cr_assert_eq(r3->entries[0].next_try_usec, 0);
        o = result_json(r3, 9);
        cr_assert_eq(json_get_int64(o, "exit"), 3);
        cr_assert_str_eq(conn_str(o, 0, "outcome"), "lost");
        cr_assert_str_eq(conn_str(o, 0, "error_kind"), "refused");
        cr_assert_eq(conn_int(o, 0, "give_up_at_usec"), (int64_t) (T0 + 61 * SEC));
        cr_assert_eq(conn_int(o, 0, "next_try_usec"), 0);
        json_object_put(o);
        unlink(kernel_log_path());
        r4 = connect_at(T0 + 100 * SEC);
        unsetenv("FAKE_KERNEL_SCRIPT");
        cr_assert_eq(r4->entries[0].outcome, FABRICS_OUTCOME_LOST, "stays lost");
        cr_assert_eq(r4->exit_code, FABRICS_EXIT_LOST);
        klog = slurp(kernel_log_path());
        cr_assert(!klog || !strstr(klog, "connect "), "a lost connection is not tried again: %s", klog);
        cr_assert(root_exists(FABRICS_RECORD_PATH), "lost entries stay until forget or a capture");
        r1 = fabrics_pass_result_free(r1);
        cr_assert_eq(fabrics_forget_pass(&r1), 0);
        cr_assert_eq(r1->exit_code, 0);
        cr_assert_not(root_exists(FABRICS_RECORD_PATH));
}

/* One subsystem, two host identities, each with its own secret: two
 * connections, secrets never mixed. */
Test(fabrics_node, two_host_identities_keep_their_secrets) {
        _cleanup_(fabrics_pass_result_freep) FabricsPassResult *c = NULL, *r = NULL;
        _cleanup_free_ char *klog = NULL;
        FakeFabrics a = { .transport = "tcp", .traddr = "127.0.0.1", .trsvcid = "4420", .subsysnqn = NQN,
                          .hostnqn = "nqn.2014-08.org.nvmexpress:uuid:aaaa", .hostid = "aaaa", .dhchap_secret = SECRET_A },
                    b = { .transport = "tcp", .traddr = "127.0.0.1", .trsvcid = "4420", .subsysnqn = NQN,
                          .hostnqn = "nqn.2014-08.org.nvmexpress:uuid:bbbb", .hostid = "bbbb", .dhchap_secret = SECRET_B };

        cr_assert_eq(fake_node_add_fabrics_controller(node, 1, &a), 0);
        cr_assert_eq(fake_node_add_fabrics_controller(node, 2, &b), 0);
        c = capture(T0);
        cr_assert_eq(c->connections->n_controllers, 2, "two connections, not one");
        swap_tcp();
        r = connect_at(T0 + SEC);
        cr_assert_eq(r->exit_code, FABRICS_EXIT_OK, "%s", r->entries[1].message ?: "");
        klog = slurp(kernel_log_path());
        cr_assert_not_null(strstr(klog, "hostnqn=nqn.2014-08.org.nvmexpress:uuid:aaaa,hostid=aaaa,"), "%s", klog);
        cr_assert_not_null(strstr(klog, "hostid=aaaa,nr_io_queues=2,queue_size=128,keep_alive_tmo=5,reconnect_delay=10,"
                                        "ctrl_loss_tmo=600,dhchap_secret=" SECRET_A " -> 0"), "%s", klog);
        cr_assert_not_null(strstr(klog, "hostid=bbbb,nr_io_queues=2,queue_size=128,keep_alive_tmo=5,reconnect_delay=10,"
                                        "ctrl_loss_tmo=600,dhchap_secret=" SECRET_B " -> 0"), "%s", klog);
}

/* Two swaps: the kernel reuses the lowest free name, so the record can hold
 * two connections under one old name; identity keeps them apart. */
Test(fabrics_node, two_swaps_reusing_a_controller_name) {
        _cleanup_(fabrics_pass_result_freep) FabricsPassResult *c1 = NULL, *r1 = NULL, *c2 = NULL, *r2 = NULL;
        _cleanup_(fabrics_topology_freep) FabricsTopology *rec = NULL;
        FakeFabrics other = { .transport = "tcp", .traddr = "127.0.0.1", .trsvcid = "4430",
                              .subsysnqn = "nqn.2026-12.test:other" };

        cr_assert_eq(fake_node_add_namespace(node, 0, 1, false, 0), 0); /* a PCIe drive keeps nvme0 */
        tcp(1, "4420", NULL);
        tcp(2, "4421", NULL);
        c1 = capture(T0);
        swap_tcp();
        script("connect " NQN " ECONNREFUSED x1\n"); /* the first of the two is nvme1's, port 4420 */
        r1 = connect_at(T0 + SEC);
        unsetenv("FAKE_KERNEL_SCRIPT");
        cr_assert_eq(r1->entries[0].outcome, FABRICS_OUTCOME_FAILED);
        cr_assert_eq(r1->entries[1].outcome, FABRICS_OUTCOME_BACK);
        cr_assert_str_eq(r1->entries[1].controller, "nvme1", "port 4421 now has the old name of port 4420");
        /* a new connection meanwhile takes nvme2 */
        cr_assert_eq(fake_node_add_fabrics_controller(node, 2, &other), 0);
        c2 = capture(T0 + 30 * SEC);
        cr_assert_eq(fabrics_record_load(&rec, NULL), 0);
        cr_assert_eq(rec->n_controllers, 3, "4421 as nvme1, 4430 as nvme2, and 4420 pending (old name nvme1)");
        swap_tcp();
        r2 = connect_at(T0 + 31 * SEC);
        cr_assert_eq(r2->exit_code, FABRICS_EXIT_OK);
        for (size_t i = 0; i < 3; i++)
                cr_assert_eq(r2->entries[i].outcome, FABRICS_OUTCOME_BACK, "%zu: %s", i, r2->entries[i].message ?: "");
        cr_assert_str_eq(r2->connections->controllers[2].trsvcid, "4420");
        cr_assert_eq(r2->connections->controllers[2].entry.attempts, 1, "the pending one kept its history");
}

Test(fabrics_node, corrupt_record_kept_aside) {
        _cleanup_(fabrics_pass_result_freep) FabricsPassResult *r = NULL, *r2 = NULL;
        char path[512];
        FILE *f;

        snprintf(path, sizeof(path), "%s%s", root, FABRICS_STATE_DIR);
        mkdir(path, 0755);
        for (int i = 0; i < 2; i++) {
                snprintf(path, sizeof(path), "%s%s", root, FABRICS_RECORD_PATH);
                f = fopen(path, "we");
                fputs("{\"version\":2,\"connections\":[{\"transport\":\"tcp\"}]}", f);
                fclose(f);
                cr_assert_eq(fabrics_connect_pass(T0, i == 0 ? &r : &r2), 0);
        }
        cr_assert_eq(r->exit_code, FABRICS_EXIT_ERROR);
        cr_assert_not_null(strstr(r->error, "record.json: connections[0].subsysnqn: missing"), "%s", r->error);
        cr_assert_not_null(strstr(r->error, "kept as "), "%s", r->error);
        cr_assert(root_exists(FABRICS_RECORD_PATH ".corrupt"));
        cr_assert(root_exists(FABRICS_RECORD_PATH ".corrupt.1"), "never over an earlier one");
        cr_assert_not_null(strstr(r2->error, "record.json.corrupt.1"), "%s", r2->error);
        cr_assert_not(root_exists(FABRICS_RECORD_PATH));
}

/* A value with ',' would add an option of its own: refused, never written. */
Test(fabrics_node, hostile_option_value_refused) {
        _cleanup_(fabrics_pass_result_freep) FabricsPassResult *c = NULL, *r = NULL;
        _cleanup_free_ char *klog = NULL;
        FakeFabrics f = { .transport = "tcp", .traddr = "127.0.0.1", .trsvcid = "4420", .subsysnqn = NQN,
                          .hostnqn = "nqn.evil,ctrl_loss_tmo=1" };

        cr_assert_eq(fake_node_add_fabrics_controller(node, 1, &f), 0);
        c = capture(T0);
        swap_tcp();
        unlink(kernel_log_path());
        r = connect_at(T0 + SEC);
        cr_assert_eq(r->entries[0].outcome, FABRICS_OUTCOME_FAILED);
        cr_assert_eq(r->entries[0].error_kind, FABRICS_ERROR_INVALID);
        cr_assert_not_null(strstr(r->entries[0].message, "option hostnqn"), "%s", r->entries[0].message);
        klog = slurp(kernel_log_path());
        cr_assert(!klog || !strstr(klog, "connect "), "nothing reached the kernel: %s", klog);
}

Test(fabrics_node, lock_held_by_another) {
        _cleanup_(fabrics_pass_result_freep) FabricsPassResult *r = NULL;
        int fd, lock;

        cr_assert_eq(fabrics_lock_take(0, &lock), 0);
        cr_assert_eq(fabrics_lock_take(0, &fd), -EWOULDBLOCK, "flock is per open file: a second one waits");
        cr_assert_eq(fabrics_capture_pass(T0, &r), 0);
        cr_assert_eq(r->exit_code, FABRICS_EXIT_ERROR);
        cr_assert_not_null(strstr(r->error, "/run/nvme-swapguard-fabrics/lock: held by another"), "%s", r->error);
        close(lock);
}

static void no_secret_under(const char *dir, const char *secret) {
        _cleanup_strv_free_ char **names = NULL;

        if (read_dir_names(dir, &names) < 0)
                return;
        STRV_FOREACH(n, names) {
                char path[1024];
                struct stat st;

                snprintf(path, sizeof(path), "%s/%s", dir, *n);
                if (lstat(path, &st) < 0 || S_ISLNK(st.st_mode))
                        continue;
                if (S_ISDIR(st.st_mode)) {
                        /* the kernel's own attribute (sysfs) holds it, as on a node */
                        if (!strstr(path, "/sys/"))
                                no_secret_under(path, secret);
                } else if (S_ISREG(st.st_mode) && !strstr(path, "/secrets.json")) {
                        _cleanup_free_ char *text = slurp(path);

                        cr_assert(!text || !strstr(text, secret), "the secret is in %s", path);
                }
        }
}

Test(fabrics_node, no_secret_outside_the_secrets_file) {
        _cleanup_(fabrics_pass_result_freep) FabricsPassResult *c = NULL, *r = NULL;
        json_object *o;

        tcp(1, "4420", SECRET_A);
        tcp(2, "4421", SECRET_B);
        c = capture(T0);
        swap_tcp();
        script("connect " NQN " EKEYREJECTED x1\n");
        r = connect_at(T0 + SEC);
        unsetenv("FAKE_KERNEL_SCRIPT");
        cr_assert_eq(r->exit_code, FABRICS_EXIT_PENDING);
        o = result_json(r, 1);
        json_object_put(o);
        no_secret_under(root, "c2VjcmV0QUFB");
        no_secret_under(root, "c2VjcmV0QkJC");
}

/* serve-request: a request that does not parse names file and line, and
 * result.json says so with the token when one parsed. */
static uint64_t fixed_now(void) {
        return T0;
}

Test(fabrics_node, serve_request) {
        _cleanup_(fabrics_pass_result_freep) FabricsPassResult *r = NULL;
        _cleanup_free_ char *error = NULL, *text = NULL;
        char path[512];
        FILE *f;
        json_object *o;

        snprintf(path, sizeof(path), "%s/run/nvme-swapguard", root);
        mkdir(path, 0755);
        snprintf(path, sizeof(path), "%s%s", root, FABRICS_REQUEST_PATH);
        f = fopen(path, "we");
        fputs("token=77\nverb=reconnect\n", f);
        fclose(f);
        cr_assert_eq(fabrics_serve_request(FABRICS_REQUEST_PATH, fixed_now, &r, &error), FABRICS_EXIT_ERROR);
        cr_assert_str_eq(error, FABRICS_REQUEST_PATH ":2: verb: not capture or connect: \"reconnect\"");
        cr_assert_neq(access(path, F_OK), 0, "the request is removed before acting");
        text = root_file(FABRICS_RESULT_PATH);
        o = json_tokener_parse(text);
        cr_assert_eq(json_get_int64(o, "token"), 77);
        cr_assert_eq(json_get_int64(o, "exit"), 1);
        cr_assert_not_null(strstr(json_get_string(o, "error"), ":2: verb"));
        json_object_put(o);
        free(error), error = NULL;
        tcp(1, "4420", NULL);
        f = fopen(path, "we");
        fputs("verb=capture\ntoken=78\n", f);
        fclose(f);
        cr_assert_eq(fabrics_serve_request(FABRICS_REQUEST_PATH, fixed_now, &r, &error), FABRICS_EXIT_OK);
        cr_assert_null(error);
        free(text);
        text = root_file(FABRICS_RESULT_PATH);
        o = json_tokener_parse(text);
        cr_assert_eq(json_get_int64(o, "token"), 78);
        cr_assert_str_eq(json_get_string(o, "verb"), "capture");
        cr_assert_str_eq(conn_str(o, 0, "outcome"), "captured");
        json_object_put(o);
}

Test(fabrics_node, build_check_names_the_missing_transport) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = NULL;
        _cleanup_strv_free_ char **missing = NULL, **none = NULL;
        LoadOptions with = { .module_tree = CONTAINER_TREE };

        tcp(1, "4420", NULL);
        t = read_topology();
        ko(CONTAINER_TREE, "extra/nvme-core.ko", "nvme_core", "", NULL, NULL);
        ko(CONTAINER_TREE, "extra/nvme.ko", "nvme", "nvme-core", NULL, NULL);
        cr_assert_eq(fake_node_write_modules_dep(node, CONTAINER_TREE), 0);
        cr_assert_eq(fabrics_transports_missing(t, &with, &missing), 0);
        cr_assert_eq(strv_length(missing), 1);
        cr_assert_str_eq(missing[0], "nvme_tcp");
        ko(CONTAINER_TREE, "extra/nvme-fabrics.ko", "nvme_fabrics", "nvme-core", NULL, NULL);
        ko(CONTAINER_TREE, "extra/nvme-tcp.ko", "nvme_tcp", "nvme-core,nvme-fabrics", NULL, NULL);
        cr_assert_eq(fake_node_write_modules_dep(node, CONTAINER_TREE), 0);
        cr_assert_eq(fabrics_transports_missing(t, &with, &none), 0);
        cr_assert_eq(strv_length(none), 0);
}
