/* SPDX-License-Identifier: Apache-2.0 */
/* NVMe over Fabrics across the swap (issue 27), the daemon's part, against
 * a scripted guard: a Manager on GuardOps whose "kernel" is two module
 * origins and whose fabrics are a list of connections with a scripted
 * reconnect outcome each, in a fake root. Checks the order of the calls
 * (the record before the unload, the reconnect after the load, the restore
 * and a refused unload), the journal entries, the state file and the
 * status document, and the no-build decision for a container tree without
 * a transport the node uses. */

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guard/guard-ops-observe.h"
#include "host/host-root.h"
#include "manager-dispatch.h"
#include "manager.h"
#include "publish/log.h"
#include "publish/message-ids.h"
#include "publish/state-file.h"
#include "publish/status-document.h"
#include "swap/swap-fabrics.h"
#include "swap/swap-lifecycle.h"
#include "swap/swap-record.h"
#include "util/strv.h"

#define MAX_CONN 3

typedef struct Script {
        GuardOrigin nvme_core, nvme, nvme_fabrics;
        int pci;                                 /* NVMe PCI functions; -1: the bus cannot be seen */
        GuardUnloadOutcome unload;
        size_t n_conn;                           /* the node's connections (nvme1, nvme2, ...) */
        bool pending;                            /* the record is on disk */
        int save_error;                          /* fabrics_save fails with it (negative) */
        GuardFabricsOutcome outcome[MAX_CONN];   /* what the reconnect does to each */
        char **calls;
} Script;

static Script script;
static Manager *manager;
static FILE *log_file;
static char root[] = "/tmp/test-swap-fabrics-XXXXXX";

static int fake_read_stack(void *userdata, GuardStack **ret) {
        Script *s = userdata;
        GuardStack *g = calloc(1, sizeof(*g));

        cr_assert_not_null(g);
        g->modules = calloc(3, sizeof(GuardModule));
        g->modules[0] = (GuardModule) { .name = strdup("nvme_core"), .origin = s->nvme_core };
        g->modules[1] = (GuardModule) { .name = strdup("nvme"), .origin = s->nvme };
        g->modules[2] = (GuardModule) { .name = strdup("nvme_fabrics"), .origin = s->nvme_fabrics };
        g->n_modules = 3;
        *ret = g;
        return 0;
}

static int fake_unload(void *userdata, char *const *recorded, GuardUnloadResult **ret) {
        Script *s = userdata;
        GuardUnloadResult *u = calloc(1, sizeof(*u));

        (void) strv_extend(&s->calls, "unload");
        u->outcome = s->unload;
        if (u->outcome == GUARD_UNLOAD_REMOVED)
                s->nvme = s->nvme_core = GUARD_ORIGIN_ABSENT;
        else if (u->outcome == GUARD_UNLOAD_REFUSED) {
                u->blockers.items = calloc(1, sizeof(GuardBlocker));
                u->blockers.items[0] = (GuardBlocker) { .device = strdup("nvme1n1"), .kind = strdup("mounted"),
                                                        .where = strdup("/data"),
                                                        .description = strdup("nvme1n1 is mounted on /data") };
                u->blockers.n = 1;
        } else {
                s->nvme = GUARD_ORIGIN_ABSENT;
                u->failed_module = strdup("nvme_core");
                u->failed_errno = EBUSY;
        }
        *ret = u;
        return 0;
}

static int fake_restore(void *userdata, char *const *modules, GuardLoadResult **ret) {
        Script *s = userdata;

        (void) strv_extend(&s->calls, "restore");
        s->nvme = s->nvme_core = GUARD_ORIGIN_IN_TREE;
        *ret = calloc(1, sizeof(GuardLoadResult));
        return 0;
}

static int fake_load_from(void *userdata, const char *tree, int root_fd, char *const *modules, unsigned timeout_sec,
                          GuardLoadResult **ret) {
        Script *s = userdata;

        (void) strv_extend(&s->calls, "load");
        s->nvme = s->nvme_core = GUARD_ORIGIN_NVIDIA;
        *ret = calloc(1, sizeof(GuardLoadResult));
        return 0;
}

static int fake_check_usage(void *userdata, GuardBlockers **ret) {
        *ret = calloc(1, sizeof(GuardBlockers));
        return 0;
}

static int fake_nvme_pci_functions(void *userdata, unsigned *ret) {
        int n = ((Script *) userdata)->pci;

        if (n < 0)
                return -ENOENT;
        *ret = (unsigned) n;
        return 0;
}

static int fake_scan_namespaces(void *userdata, GuardNamespaces **ret) {
        *ret = calloc(1, sizeof(GuardNamespaces));
        return 0;
}

/* The node's connections: nvme<i+1>, tcp 10.0.0.<i+1>:4420. */
static GuardFabrics *connections(const Script *s, GuardFabricsOutcome outcome) {
        GuardFabrics *f = calloc(1, sizeof(*f));

        cr_assert_not_null(f);
        for (size_t i = 0; i < s->n_conn; i++) {
                GuardFabricsConnection *c = guard_fabrics_add(f);

                cr_assert_not_null(c);
                cr_assert_geq(asprintf(&c->controller, "nvme%zu", i + 1), 0);
                cr_assert_geq(asprintf(&c->address, "10.0.0.%zu:4420", i + 1), 0);
                c->transport = strdup("tcp");
                c->subsysnqn = strdup("nqn.2026-12.test:sub");
                cr_assert_geq(asprintf(&c->description, "%s: tcp %s %s", c->controller, c->address, c->subsysnqn), 0);
                c->outcome = outcome;
        }
        if (s->n_conn > 0)
                (void) strv_extend(&f->transports, "nvme_tcp");
        return f;
}

static int fake_fabrics_read(void *userdata, GuardFabrics **ret) {
        Script *s = userdata;

        (void) strv_extend(&s->calls, "fabrics_read");
        *ret = connections(s, GUARD_FABRICS_LIVE);
        return 0;
}

static int fake_fabrics_save(void *userdata, GuardFabrics **ret) {
        Script *s = userdata;

        (void) strv_extend(&s->calls, "fabrics_save");
        if (s->save_error < 0)
                return s->save_error;
        s->pending = s->pending || s->n_conn > 0;
        *ret = connections(s, GUARD_FABRICS_PENDING);
        return 0;
}

static int fake_fabrics_pending(void *userdata, GuardFabrics **ret) {
        Script *s = userdata;
        size_t n = s->n_conn;

        if (!s->pending)
                s->n_conn = 0;
        *ret = connections(s, GUARD_FABRICS_PENDING);
        s->n_conn = n;
        return 0;
}

static int fake_fabrics_reconnect(void *userdata, unsigned timeout_sec, GuardFabrics **ret) {
        Script *s = userdata;
        GuardFabrics *f;
        bool all_back = true;

        (void) strv_extend(&s->calls, "fabrics_reconnect");
        cr_assert_eq(timeout_sec, SWAP_FABRICS_TIMEOUT_SEC);
        if (!s->pending) {
                *ret = calloc(1, sizeof(GuardFabrics));
                return 0;
        }
        f = connections(s, GUARD_FABRICS_PENDING);
        for (size_t i = 0; i < f->n; i++) {
                GuardFabricsConnection *c = &f->items[i];

                c->outcome = s->outcome[i];
                if (c->outcome == GUARD_FABRICS_RECONNECTED || c->outcome == GUARD_FABRICS_ALREADY_LIVE)
                        cr_assert_geq(asprintf(&c->new_controller, "nvme%zu", i + 5), 0);
                else {
                        all_back = false;
                        c->error = ECONNREFUSED;
                        c->error_message = strdup("connection refused: nothing listens at 10.0.0.1:4420");
                }
        }
        s->pending = !all_back;
        *ret = f;
        return 0;
}

static const GuardOps scripted_ops = {
        .unload = fake_unload,
        .load_from = fake_load_from,
        .restore = fake_restore,
        .read_stack = fake_read_stack,
        .check_usage = fake_check_usage,
        .scan_namespaces = fake_scan_namespaces,
        .nvme_pci_functions = fake_nvme_pci_functions,
        .fabrics_read = fake_fabrics_read,
        .fabrics_save = fake_fabrics_save,
        .fabrics_pending = fake_fabrics_pending,
        .fabrics_reconnect = fake_fabrics_reconnect,
        .userdata = &script,
};

static void start_manager(const GuardOps *ops) {
        Config *c = NULL;

        cr_assert_eq(config_new_default(&c), 0);
        cr_assert_eq(manager_new(&(ManagerOptions) { .config_path = "/nonexistent.conf", .config_optional = true,
                                                     .ops = ops },
                                 c, &manager),
                     0);
        manager->started = true;
}

static void setup(void) {
        char cmd[160];

        script = (Script) { .nvme_core = GUARD_ORIGIN_IN_TREE, .nvme = GUARD_ORIGIN_IN_TREE,
                            .unload = GUARD_UNLOAD_REMOVED, .n_conn = 1 };
        cr_assert_not_null(mkdtemp(root));
        snprintf(cmd, sizeof(cmd), "mkdir -p %s/run %s/var/log", root, root);
        cr_assert_eq(system(cmd), 0);
        cr_assert_eq(host_root_set(root), 0);
        log_file = tmpfile();
        cr_assert_not_null(log_file);
        cr_assert_geq(dup2(fileno(log_file), STDERR_FILENO), 0);
        log_set_target(LOG_TARGET_STDERR);
        start_manager(&scripted_ops);
}

static void teardown(void) {
        char cmd[128];

        manager = manager_free(manager);
        script.calls = strv_free(script.calls);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
        (void) system(cmd);
}

/* The journal lines with this MESSAGE_ID so far, each also containing `and` (NULL: any). */
static unsigned entries_with(const char *message_id, const char *and) {
        char *line = NULL, needle[64];
        size_t n = 0;
        unsigned count = 0;

        fflush(stderr);
        snprintf(needle, sizeof(needle), "MESSAGE_ID=%s", message_id);
        rewind(log_file);
        while (getline(&line, &n, log_file) > 0)
                if (strstr(line, needle) && (!and || strstr(line, and)))
                        count++;
        free(line);
        return count;
}

static char *calls(void) {
        static char buf[512];
        size_t len = 0;

        buf[0] = '\0';
        STRV_FOREACH(c, script.calls)
                len += (size_t) snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? " " : "", *c);
        return buf;
}

static StateFile *state_file(void) {
        StateFile *s = NULL;

        cr_assert_eq(state_file_read(&s), 0);
        return s;
}

TestSuite(swap_fabrics, .init = setup, .fini = teardown);

Test(swap_fabrics, the_record_is_saved_before_the_unload_and_says_what_it_drops) {
        StateFile *s;

        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
        cr_assert_eq(manager->state, SWAP_STATE_UNLOADED_WAITING_DRIVER);
        cr_assert_str_eq(calls(), "fabrics_save unload");
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_DROP,
                                  "nvme1: tcp 10.0.0.1:4420 nqn.2026-12.test:sub: disconnected by the unload, "
                                  "reconnected after the load."),
                     1);
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_DROP, "SWAPGUARD_FABRICS_ADDRESS=10.0.0.1:4420"), 1);
        /* In the state file before anything else can happen: a crash now still shows them. */
        s = state_file();
        cr_assert_not_null(s->fabrics);
        cr_assert_eq(s->fabrics->n, 1);
        cr_assert_eq(s->fabrics->items[0].outcome, GUARD_FABRICS_PENDING);
        cr_assert_str_eq(s->fabrics->items[0].address, "10.0.0.1:4420");
        state_file_free(s);
}

Test(swap_fabrics, no_connection_no_entry_no_record) {
        script.n_conn = 0;
        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
        cr_assert_str_eq(calls(), "fabrics_save unload");
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_DROP, NULL), 0);
        cr_assert_null(manager->record.fabrics);
}

Test(swap_fabrics, a_restore_reconnects_through_the_in_tree_transports) {
        script.unload = GUARD_UNLOAD_FAILED_UNRESTORED;
        script.outcome[0] = GUARD_FABRICS_RECONNECTED;

        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
        cr_assert_str_eq(calls(), "fabrics_save unload restore fabrics_reconnect");
        cr_assert_eq(manager->state, SWAP_STATE_RESTORED);
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_RECONNECTED,
                                  "nvme1: tcp 10.0.0.1:4420 nqn.2026-12.test:sub: reconnected after the restore as nvme5"),
                     1);
        cr_assert_eq(manager->record.fabrics->items[0].outcome, GUARD_FABRICS_RECONNECTED);
        cr_assert_not(script.pending, "the record is kept although every connection is back");
}

Test(swap_fabrics, a_refused_unload_clears_the_record_quietly) {
        script.unload = GUARD_UNLOAD_REFUSED;
        script.outcome[0] = GUARD_FABRICS_ALREADY_LIVE;

        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
        cr_assert_eq(manager->state, SWAP_STATE_BLOCKED);
        cr_assert_str_eq(calls(), "fabrics_save unload fabrics_reconnect");
        cr_assert_not(script.pending);
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_RECONNECTED, NULL), 0);
        cr_assert_null(manager->record.fabrics, "a connection never dropped is shown");
}

Test(swap_fabrics, a_connection_not_back_is_a_warning_in_the_journal_state_file_and_status_document) {
        _cleanup_free_ char *text = NULL;
        StateFile *s;

        script.n_conn = 2;
        script.outcome[0] = GUARD_FABRICS_RECONNECTED;
        script.outcome[1] = GUARD_FABRICS_FAILED;
        cr_assert_eq(swap_fabrics_before_unload(manager), 0);
        swap_fabrics_reconnect(manager, "after the load", false);
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_RECONNECTED, "nvme1: tcp 10.0.0.1:4420"), 1);
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_LOST,
                                  "nvme2: tcp 10.0.0.2:4420 nqn.2026-12.test:sub: not reconnected after the load: "
                                  "connection refused: nothing listens at 10.0.0.1:4420 (Connection refused)"),
                     1);
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_LOST, "SWAPGUARD_FABRICS_ERRNO=111"), 1);
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_LOST, " warning: "), 1, "not a warning");
        cr_assert(script.pending, "the record of a connection not back was removed");
        cr_assert_not_null(strstr(manager->record.message, "1 of 2 NVMe over Fabrics connections not back"));

        swap_record_persist(manager);
        s = state_file();
        cr_assert_eq(s->fabrics->n, 2);
        cr_assert_eq(s->fabrics->items[1].outcome, GUARD_FABRICS_FAILED);
        cr_assert_eq(s->fabrics->items[1].error, ECONNREFUSED);
        cr_assert_str_eq(s->fabrics->items[0].new_controller, "nvme5");
        cr_assert_eq(status_document_to_json(&(StatusFacts) { .record = s, .version = "test" }, &text), 0);
        cr_assert_not_null(strstr(text, "\"fabrics_warnings\""), "%s", text);
        cr_assert_not_null(strstr(text, "nvme2: tcp 10.0.0.2:4420 nqn.2026-12.test:sub: not reconnected: "
                                        "connection refused"),
                           "%s", text);
        state_file_free(s);
}

Test(swap_fabrics, a_blocked_unload_tried_again_says_the_drop_once) {
        cr_assert_eq(swap_fabrics_before_unload(manager), 0);
        cr_assert_eq(swap_fabrics_before_unload(manager), 0);
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_DROP, NULL), 1);
        script.n_conn = 2; /* a new connection since: news */
        cr_assert_eq(swap_fabrics_before_unload(manager), 0);
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_DROP, NULL), 3);
}

Test(swap_fabrics, a_start_with_a_pending_record_reconnects_when_a_stack_is_loaded) {
        script.pending = true;
        script.outcome[0] = GUARD_FABRICS_RECONNECTED;
        manager->state = SWAP_STATE_SWAPPED;
        script.nvme = script.nvme_core = GUARD_ORIGIN_NVIDIA;
        swap_fabrics_start(manager);
        cr_assert_str_eq(calls(), "fabrics_reconnect");
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_RECONNECTED, "reconnected on start as nvme5"), 1);
        cr_assert_not(script.pending);
}

Test(swap_fabrics, a_start_while_unloaded_only_shows_the_pending_record) {
        script.pending = true;
        manager->state = SWAP_STATE_UNLOADED_WAITING_DRIVER;
        script.nvme = script.nvme_core = GUARD_ORIGIN_ABSENT;
        swap_fabrics_start(manager);
        cr_assert_str_eq(calls(), "", "reconnected without a transport: %s", calls());
        cr_assert_not_null(manager->record.fabrics);
        cr_assert_eq(manager->record.fabrics->items[0].outcome, GUARD_FABRICS_PENDING);
}

/* A container tree in the fake root with the given modules of NVIDIA's RPM layout. */
static void make_tree(const char *tree, const char *const *kos) {
        char cmd[512];

        for (size_t i = 0; kos[i]; i++) {
                snprintf(cmd, sizeof(cmd), "mkdir -p %s%s/extra/mlnx-nvme/host && touch %s%s/extra/mlnx-nvme/host/%s",
                         root, tree, root, tree, kos[i]);
                cr_assert_eq(system(cmd), 0);
        }
}

Test(swap_fabrics, a_container_tree_without_the_transport_is_no_build_before_any_unload) {
        _cleanup_free_ char *path = NULL;

        make_tree("/c/lib/modules/6.1", (const char *const[]) { "nvme-core.ko", "nvme.ko", "nvme-fabrics.ko", NULL });
        cr_assert_eq(host_path("/c/lib/modules/6.1", &path), 0);
        swap_fabrics_container_followed(manager, path, TREE_BUILD_PRESENT);
        cr_assert(manager->build_ruled_out);
        cr_assert_str_eq(calls(), "fabrics_read", "%s", calls());
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_NO_TRANSPORT,
                                  "has no build of nvme_tcp, which the node's NVMe over Fabrics connections need "
                                  "(nvme1: tcp 10.0.0.1:4420 nqn.2026-12.test:sub)"),
                     1);
        cr_assert_not_null(strstr(manager->record.message, "no-build"));
}

Test(swap_fabrics, a_container_tree_with_the_transport_is_a_swap) {
        _cleanup_free_ char *path = NULL;

        make_tree("/c/lib/modules/6.1", (const char *const[]) { "nvme-core.ko", "nvme.ko", "nvme-tcp.ko", NULL });
        cr_assert_eq(host_path("/c/lib/modules/6.1", &path), 0);
        swap_fabrics_container_followed(manager, path, TREE_BUILD_PRESENT);
        cr_assert_not(manager->build_ruled_out);
        /* A tree not built yet (sources mode) is not judged here. */
        script.n_conn = 1;
        swap_fabrics_container_followed(manager, path, TREE_BUILD_ABSENT);
        cr_assert_str_eq(calls(), "fabrics_read", "%s", calls());
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_NO_TRANSPORT, NULL), 0);
}

Test(swap_fabrics, before_a_load_the_record_decides_the_transports) {
        make_tree("/c/lib/modules/6.1", (const char *const[]) { "nvme-core.ko", "nvme.ko", NULL });
        script.pending = true;
        cr_assert(swap_fabrics_tree_lacks_transport(manager, "/c/lib/modules/6.1"));
        cr_assert(manager->build_ruled_out);
        script.pending = false; /* no record: nothing to lack */
        manager->build_ruled_out = false;
        cr_assert_not(swap_fabrics_tree_lacks_transport(manager, "/c/lib/modules/6.1"));
}

Test(swap_fabrics, observe_reads_and_says_would_without_saving) {
        GuardOps *observe = NULL;

        manager = manager_free(manager);
        cr_assert_eq(guard_ops_observe_new(&scripted_ops, &observe), 0);
        start_manager(observe);
        cr_assert_eq(swap_fabrics_before_unload(manager), 0);
        cr_assert_str_eq(calls(), "fabrics_read", "observe saved a record: %s", calls());
        cr_assert_not(script.pending);
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_DROP,
                                  "Observe: nvme1: tcp 10.0.0.1:4420 nqn.2026-12.test:sub: would be disconnected by "
                                  "the unload and reconnected after the load."),
                     1);
        cr_assert_eq(manager->record.fabrics->items[0].outcome, GUARD_FABRICS_LIVE);
        manager = manager_free(manager);
        guard_ops_observe_free(observe);
}

Test(swap_fabrics, the_state_file_round_trips_the_connections) {
        StateFile in = { .state = SWAP_STATE_SWAPPED }, *out = NULL;
        _cleanup_free_ char *text = NULL;

        script.n_conn = 2;
        in.fabrics = connections(&script, GUARD_FABRICS_NAMESPACES_MISSING);
        in.fabrics->items[1].error = ENOENT;
        in.fabrics->items[1].error_message = strdup("namespaces not back: nsid 2");
        cr_assert_eq(state_file_to_json(&in, &text), 0);
        cr_assert_eq(state_file_from_json(text, &out), 0);
        cr_assert_eq(out->fabrics->n, 2);
        cr_assert_eq(out->fabrics->items[1].outcome, GUARD_FABRICS_NAMESPACES_MISSING);
        cr_assert_eq(out->fabrics->items[1].error, ENOENT);
        cr_assert_str_eq(out->fabrics->items[1].error_message, "namespaces not back: nsid 2");
        cr_assert_str_eq(out->fabrics->items[0].description, "nvme1: tcp 10.0.0.1:4420 nqn.2026-12.test:sub");
        state_file_free(out);
        guard_fabrics_free(in.fabrics);
}

/* Found in the VM (layout none): nvme_core and nvme_fabrics without nvme on
 * a node with no NVMe PCI function is a fabrics-only node, not a stack to
 * repair by loading nvme; with NVMe PCI functions (nvme removed behind our
 * back), or a bus that cannot be seen, it is broken. */
Test(swap_fabrics, a_fabrics_only_node_is_not_a_broken_stack) {
        script.nvme = GUARD_ORIGIN_ABSENT;
        script.nvme_fabrics = GUARD_ORIGIN_IN_TREE;
        cr_assert_eq(lifecycle_stack_settled(manager), _SWAP_EVENT_INVALID);
        script.pci = 2;
        cr_assert_eq(lifecycle_stack_settled(manager), SWAP_EVENT_STACK_BROKEN);
        script.pci = -1;
        cr_assert_eq(lifecycle_stack_settled(manager), SWAP_EVENT_STACK_BROKEN);
        script.pci = 0;
        script.nvme_fabrics = GUARD_ORIGIN_ABSENT; /* nvme_core alone: broken */
        cr_assert_eq(lifecycle_stack_settled(manager), SWAP_EVENT_STACK_BROKEN);
}

/* Safety first: connections that cannot be recorded are not dropped. */
Test(swap_fabrics, no_record_no_unload) {
        script.save_error = -EIO;
        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
        cr_assert_str_eq(calls(), "fabrics_save", "unloaded without a record: %s", calls());
        cr_assert_eq(manager->state, SWAP_STATE_FAILED);
        cr_assert_eq(script.nvme, GUARD_ORIGIN_IN_TREE);
        cr_assert_not_null(strstr(manager->failure, "Cannot record the node's NVMe over Fabrics connections"),
                           "%s", manager->failure);
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FAILED, "Input/output error"), 1);
}
