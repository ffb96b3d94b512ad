/* SPDX-License-Identifier: Apache-2.0 */
/* The fabrics library against a fake node and the fake kernel (this
 * process runs with fake-kernel.so preloaded, see meson.build): the
 * topology read from the kernel's sysfs layout, the record and its secrets
 * file on disk, the reconnect through /dev/nvme-fabrics after the transport
 * module took the controllers with it, and the build check. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actions/fabrics-build-check.h"
#include "actions/fabrics-reconnect.h"
#include "fake-cli-suite.h"
#include "host/host-root.h"
#include "nvme/fabrics-record.h"
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

TestSuite(fabrics_node, .init = setup, .fini = teardown, .timeout = 60);

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

Test(fabrics_node, record_and_secrets_on_disk) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = NULL, *back = NULL;
        _cleanup_free_ char *record = NULL, *secrets = NULL, *error = NULL;
        _cleanup_secret_ char *host = NULL, *ctrl = NULL;
        char path[512];
        struct stat st;

        tcp(1, "4420", "DHHC-1:00:c2VjcmV0:");
        t = read_topology();
        cr_assert(t->controllers[0].dhchap_secret);
        cr_assert_eq(fabrics_record_save(t), 0);
        snprintf(path, sizeof(path), "%s%s", root, FABRICS_RECORD_PATH);
        record = slurp(path);
        cr_assert_not_null(record);
        cr_assert_null(strstr(record, "DHHC"), "the record never holds a secret");
        snprintf(path, sizeof(path), "%s%s", root, FABRICS_SECRETS_PATH);
        cr_assert_eq(stat(path, &st), 0);
        cr_assert_eq(st.st_mode & 0777, 0600);
        secrets = slurp(path);
        cr_assert_not_null(strstr(secrets, "DHHC-1:00:c2VjcmV0:"));
        cr_assert_eq(fabrics_record_exists(), 1);
        cr_assert_eq(fabrics_record_load(&back, &error), 0, "%s", error ?: "");
        cr_assert_eq(back->n_controllers, 1);
        cr_assert_eq(fabrics_secrets_load(&back->controllers[0], &host, &ctrl), 0);
        cr_assert_str_eq(host, "DHHC-1:00:c2VjcmV0:");
        cr_assert_null(ctrl);
        cr_assert_eq(fabrics_record_remove(), 0);
        cr_assert_eq(fabrics_record_exists(), 0);
        cr_assert_neq(access(path, F_OK), 0, "the secrets go with the record");
}

Test(fabrics_node, bad_record_names_file_and_field) {
        FabricsTopology *t = NULL;
        _cleanup_free_ char *error = NULL;
        char path[512];

        cr_assert_eq(fabrics_record_load(&t, &error), -ENOENT);
        cr_assert_null(error);
        snprintf(path, sizeof(path), "%s/run/nvme-swapguard", root);
        mkdir(path, 0755);
        snprintf(path, sizeof(path), "%s%s", root, FABRICS_RECORD_PATH);
        FILE *f = fopen(path, "we");
        fputs("{\"version\":1,\"controllers\":[{\"name\":\"nvme1\",\"transport\":\"tcp\"}]}", f);
        fclose(f);
        cr_assert_eq(fabrics_record_load(&t, &error), -EBADMSG);
        cr_assert_not_null(strstr(error, "fabrics.json: controllers[0].subsysnqn: missing"), "%s", error);
}

/* What the unload does: the transport's removal deletes its controllers. */
static void unload_tcp(void) {
        cr_assert_eq(fake_node_fabrics_module_removed(node, "nvme_tcp"), 0);
        cr_assert_eq(fake_node_module_removed(node, "nvme_tcp"), 0);
}

Test(fabrics_node, reconnect_after_the_transport_went) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = NULL, *gone = NULL, *now = NULL;
        _cleanup_(fabrics_reconnect_result_freep) FabricsReconnectResult *r = NULL;
        FabricsReconnectOptions o = { .timeout_sec = 5 };
        char log[512], *klog;

        cr_assert_eq(fake_node_add_namespace(node, 0, 1, false, 0), 0);
        tcp(1, "4420", NULL);
        t = read_topology();
        unload_tcp();
        gone = read_topology();
        cr_assert_eq(gone->n_controllers, 0, "the transport took its controller");
        cr_assert_eq(fake_node_add_module(node, "nvme_tcp", 0, NULL, "O"), 0); /* NVIDIA's, loaded by the caller */
        snprintf(log, sizeof(log), "%s/../kernel.log", root);
        setenv("FAKE_KERNEL_LOG", log, 1);
        cr_assert_eq(fabrics_reconnect(t, &o, &r), 0);
        unsetenv("FAKE_KERNEL_LOG");
        cr_assert_eq(r->n_entries, 1);
        cr_assert_eq(r->entries[0].outcome, FABRICS_RECONNECTED, "%s", r->entries[0].error_message ?: "");
        cr_assert_str_eq(r->entries[0].old_name, "nvme1");
        cr_assert_str_eq(r->entries[0].new_name, "nvme1", "the lowest free instance");
        cr_assert_str_eq(r->entries[0].namespaces[0], "nvme1n1 (nsid 1)");
        cr_assert(fabrics_reconnect_all_back(r));
        klog = slurp(log);
        cr_assert_not_null(strstr(klog, "connect nqn=" NQN ",transport=tcp,traddr=127.0.0.1,trsvcid=4420,"),
                           "%s", klog);
        cr_assert_not_null(strstr(klog, ",queue_size=64,keep_alive_tmo=7,reconnect_delay=10,ctrl_loss_tmo=-1 -> 0"),
                           "%s", klog);
        free(klog);
        now = read_topology();
        cr_assert_eq(now->n_controllers, 1);
        cr_assert_eq(now->controllers[0].ctrl_loss_tmo, FABRICS_OPT_OFF, "the same parameters again");
        cr_assert_eq(now->controllers[0].kato, 7);
        cr_assert_eq(now->controllers[0].queue_size, 64);
        cr_assert_eq(now->controllers[0].nr_io_queues, 2);
}

Test(fabrics_node, reconnect_outcomes) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = NULL;
        _cleanup_(fabrics_reconnect_result_freep) FabricsReconnectResult *r = NULL;
        FabricsReconnectOptions o = { .timeout_sec = 1 };
        FakeFabrics gone_target = {
                .transport = "tcp", .traddr = "127.0.0.1", .trsvcid = "4422", .subsysnqn = "nqn.2026-12.test:gone",
                .namespaces = one_ns, .n_namespaces = 1,
        };
        char path[512];

        tcp(1, "4420", NULL); /* stays: already live */
        tcp(2, "4421", NULL); /* comes back without its namespace */
        cr_assert_eq(fake_node_add_fabrics_controller(node, 3, &gone_target), 0); /* nothing listens any more */
        t = read_topology();
        cr_assert_eq(t->n_controllers, 3);
        /* controllers 2 and 3 go; the targets change under them */
        cr_assert_eq(fake_node_fabrics_module_removed(node, "nvme_tcp"), 0);
        tcp(1, "4420", NULL);
        snprintf(path, sizeof(path), "%s/fake-fabrics/targets", root);
        FILE *f = fopen(path, "we");
        fprintf(f, "tcp 127.0.0.1 4420 %s 1:%s:-\ntcp 127.0.0.1 4421 %s\n", NQN, NGUID, NQN);
        fclose(f);
        cr_assert_eq(fabrics_reconnect(t, &o, &r), 0);
        cr_assert_eq(r->entries[0].outcome, FABRICS_ALREADY_LIVE);
        cr_assert_eq(r->entries[1].outcome, FABRICS_NAMESPACES_MISSING, "%s", r->entries[1].error_message ?: "");
        cr_assert_eq(r->entries[1].error, ENOENT);
        cr_assert_not_null(strstr(r->entries[1].missing[0], "nsid 1 (" NGUID ")"), "%s", r->entries[1].missing[0]);
        cr_assert_eq(r->entries[2].outcome, FABRICS_FAILED);
        cr_assert_eq(r->entries[2].error, ECONNREFUSED);
        cr_assert_not_null(strstr(r->entries[2].error_message, "nothing accepts connections"), "%s",
                           r->entries[2].error_message);
        cr_assert_not(fabrics_reconnect_all_back(r));
}

Test(fabrics_node, reconnect_needs_the_transport_loaded) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = NULL;
        _cleanup_(fabrics_reconnect_result_freep) FabricsReconnectResult *r = NULL;
        FabricsReconnectOptions o = { .timeout_sec = 1 };

        tcp(1, "4420", NULL);
        t = read_topology();
        unload_tcp();
        cr_assert_eq(fabrics_reconnect(t, &o, &r), 0);
        cr_assert_eq(r->entries[0].outcome, FABRICS_FAILED);
        cr_assert_eq(r->entries[0].error, EINVAL, "the kernel finds no handler for the transport");
        cr_assert_str_eq(r->entries[0].kernel_message, "nvme_fabrics: no handler found for transport tcp.");
}

Test(fabrics_node, secrets_pass_to_the_kernel) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = NULL;
        _cleanup_(fabrics_reconnect_result_freep) FabricsReconnectResult *r = NULL;
        FabricsReconnectOptions o = { .timeout_sec = 5 };
        char log[512], *klog;

        tcp(1, "4420", "DHHC-1:00:c2VjcmV0:");
        t = read_topology();
        cr_assert_eq(fabrics_record_save(t), 0);
        unload_tcp();
        cr_assert_eq(fake_node_add_module(node, "nvme_tcp", 0, NULL, ""), 0);
        snprintf(log, sizeof(log), "%s/../kernel.log", root);
        setenv("FAKE_KERNEL_LOG", log, 1);
        cr_assert_eq(fabrics_reconnect(t, &o, &r), 0);
        unsetenv("FAKE_KERNEL_LOG");
        cr_assert_eq(r->entries[0].outcome, FABRICS_RECONNECTED, "%s", r->entries[0].error_message ?: "");
        klog = slurp(log);
        cr_assert_not_null(strstr(klog, ",dhchap_secret=DHHC-1:00:c2VjcmV0: -> 0"), "%s", klog);
        free(klog);
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
