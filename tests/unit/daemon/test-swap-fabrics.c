/* SPDX-License-Identifier: Apache-2.0 */
/* NVMe over Fabrics across the swap, the daemon's part, against a scripted
 * guard and a scripted nvme-swapguard-fabrics.service: a Manager on
 * NodeOps whose "kernel" is module origins and a list of live fabrics
 * connections, in a fake root; the unit's answers are result.json files
 * written here with the token of the request the daemon wrote, seen by the
 * daemon's inotify watch while the test runs its loop. Checks that the
 * unload waits for the capture (blocked, never a blocking call) and goes
 * on when it answers, that a silent unit keeps the stack, the connect after
 * the load and its answers (back, pending with a timer, lost, the unit
 * failed) in the journal, the state file, the status document and STATUS=,
 * and the no-build decision for a container tree without a transport. */

#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "node/node-ops-observe.h"
#include "host/host-root.h"
#include "manager-dispatch.h"
#include "manager-fabrics.h"
#include "manager-lifecycle.h"
#include "manager.h"
#include "publish/log.h"
#include "publish/message-ids.h"
#include "publish/state-file.h"
#include "publish/status-document.h"
#include "swap/swap-fabrics-report.h"
#include "swap/swap-fabrics.h"
#include "swap/swap-record.h"
#include "util/fileio.h"
#include "util/strv.h"
#include "watch/fabrics-watch.h"

typedef struct Script {
        NodeOrigin nvme_core, nvme, nvme_fabrics;
        int pci;                                 /* NVMe PCI functions; -1: the bus cannot be seen */
        NodeUnloadOutcome unload;
        size_t n_conn;                           /* the node's live connections (nvme1, nvme2, ...) */
        int read_error;                          /* fabrics_read fails with it (negative) */
        bool in_use;                             /* the usage check finds nvme1n1 mounted */
        char **calls;
} Script;

static Script script;
static Manager *manager;
static FILE *log_file;
static char root[] = "/tmp/test-swap-fabrics-XXXXXX";

static int fake_read_stack(void *userdata, NodeStack **ret) {
        Script *s = userdata;
        NodeStack *g = calloc(1, sizeof(*g));

        cr_assert_not_null(g);
        g->modules = calloc(3, sizeof(NodeModule));
        g->modules[0] = (NodeModule) { .name = strdup("nvme_core"), .origin = s->nvme_core };
        g->modules[1] = (NodeModule) { .name = strdup("nvme"), .origin = s->nvme };
        g->modules[2] = (NodeModule) { .name = strdup("nvme_fabrics"), .origin = s->nvme_fabrics };
        g->n_modules = 3;
        *ret = g;
        return 0;
}

static int fake_unload(void *userdata, char *const *recorded, NodeUnloadResult **ret) {
        Script *s = userdata;
        NodeUnloadResult *u = calloc(1, sizeof(*u));

        (void) strv_extend(&s->calls, "unload");
        u->outcome = s->unload;
        if (u->outcome == NODE_UNLOAD_REMOVED) {
                s->nvme = s->nvme_core = NODE_ORIGIN_ABSENT;
                s->n_conn = 0; /* the transport's removal deletes its controllers */
        }
        else if (u->outcome == NODE_UNLOAD_REFUSED) {
                u->blockers.items = calloc(1, sizeof(NodeBlocker));
                u->blockers.items[0] = (NodeBlocker) { .device = strdup("nvme1n1"), .kind = strdup("mounted"),
                                                        .where = strdup("/data"),
                                                        .description = strdup("nvme1n1 is mounted on /data") };
                u->blockers.n = 1;
        } else {
                s->nvme = NODE_ORIGIN_ABSENT;
                u->failed_module = strdup("nvme_core");
                u->failed_errno = EBUSY;
        }
        *ret = u;
        return 0;
}

static int fake_restore(void *userdata, char *const *modules, NodeLoadResult **ret) {
        Script *s = userdata;

        (void) strv_extend(&s->calls, "restore");
        s->nvme = s->nvme_core = NODE_ORIGIN_IN_TREE;
        *ret = calloc(1, sizeof(NodeLoadResult));
        return 0;
}

static int fake_load_from(void *userdata, const char *tree, int root_fd, char *const *modules, unsigned timeout_sec,
                          NodeLoadResult **ret) {
        Script *s = userdata;

        (void) strv_extend(&s->calls, "load");
        s->nvme = s->nvme_core = NODE_ORIGIN_NVIDIA;
        *ret = calloc(1, sizeof(NodeLoadResult));
        return 0;
}

static int fake_check_usage(void *userdata, NodeBlockers **ret) {
        NodeBlockers *b = calloc(1, sizeof(NodeBlockers));

        if (((Script *) userdata)->in_use) {
                b->items = calloc(1, sizeof(NodeBlocker));
                b->items[0] = (NodeBlocker) { .device = strdup("nvme1n1"), .kind = strdup("mounted"),
                                               .where = strdup("/data"),
                                               .description = strdup("nvme1n1 is mounted on /data") };
                b->n = 1;
        }
        *ret = b;
        return 0;
}

static int fake_nvme_pci_functions(void *userdata, unsigned *ret) {
        int n = ((Script *) userdata)->pci;

        if (n < 0)
                return -ENOENT;
        *ret = (unsigned) n;
        return 0;
}

static int fake_scan_namespaces(void *userdata, NodeNamespaces **ret) {
        *ret = calloc(1, sizeof(NodeNamespaces));
        return 0;
}

/* The node's connections: nvme<i+1>, tcp 10.0.0.<i+1>:4420. */
static NodeFabrics *connections(const Script *s, NodeFabricsOutcome outcome) {
        NodeFabrics *f = calloc(1, sizeof(*f));

        cr_assert_not_null(f);
        for (size_t i = 0; i < s->n_conn; i++) {
                NodeFabricsConnection *c = node_fabrics_add(f);

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

static int fake_fabrics_read(void *userdata, NodeFabrics **ret) {
        Script *s = userdata;

        (void) strv_extend(&s->calls, "fabrics_read");
        if (s->read_error < 0)
                return s->read_error;
        *ret = connections(s, NODE_FABRICS_LIVE);
        return 0;
}

static const NodeOps scripted_ops = {
        .unload = fake_unload,
        .load_from = fake_load_from,
        .restore = fake_restore,
        .read_stack = fake_read_stack,
        .check_usage = fake_check_usage,
        .scan_namespaces = fake_scan_namespaces,
        .nvme_pci_functions = fake_nvme_pci_functions,
        .fabrics_read = fake_fabrics_read,
        .userdata = &script,
};

static void start_manager(const NodeOps *ops) {
        Config *c = NULL;

        cr_assert_eq(config_new_default(&c), 0);
        cr_assert_eq(manager_new(&(ManagerOptions) { .config_path = "/nonexistent.conf", .config_optional = true,
                                                     .ops = ops },
                                 c, &manager),
                     0);
        manager->swap.started = true;
        manager_fabrics_setup(manager);
        cr_assert_not_null(manager->fabrics.watch);
}

static void setup(void) {
        char cmd[256];

        script = (Script) { .nvme_core = NODE_ORIGIN_IN_TREE, .nvme = NODE_ORIGIN_IN_TREE,
                            .unload = NODE_UNLOAD_REMOVED, .n_conn = 1 };
        cr_assert_not_null(mkdtemp(root));
        snprintf(cmd, sizeof(cmd), "mkdir -p %s/run/nvme-swapguard %s/run/nvme-swapguard-fabrics %s/var/log", root,
                 root, root);
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

/* The request the daemon wrote: its verb ("" when none) and token. */
static const char *request(uint64_t *ret_token) {
        static char verb[32];
        _cleanup_free_ char *path = NULL, *text = NULL;
        char *t;

        verb[0] = '\0';
        *ret_token = 0;
        cr_assert_eq(host_path("/run/nvme-swapguard/fabrics-request", &path), 0);
        if (read_full_file(path, &text, NULL) < 0)
                return verb;
        cr_assert_eq(strncmp(text, "verb=", 5), 0, "%s", text);
        snprintf(verb, sizeof(verb), "%.*s", (int) strcspn(text + 5, "\n"), text + 5);
        t = strstr(text, "\ntoken=");
        cr_assert_not_null(t, "%s", text);
        *ret_token = strtoull(t + 7, NULL, 10);
        cr_assert_gt(*ret_token, 0);
        return verb;
}

/* The unit's answer to the request on disk, as serve-request writes it
 * (the request removed, result.json renamed into place), then the loop. */
static void answer(const char *verb, int exit, const char *error, const char *connections_json) {
        _cleanup_free_ char *req = NULL, *tmp = NULL, *dst = NULL, *text = NULL;
        uint64_t token;

        cr_assert_str_eq(request(&token), verb);
        cr_assert_eq(host_path("/run/nvme-swapguard/fabrics-request", &req), 0);
        cr_assert_eq(unlink(req), 0);
        cr_assert_eq(host_path("/run/nvme-swapguard-fabrics/result.json.tmp", &tmp), 0);
        cr_assert_eq(host_path("/run/nvme-swapguard-fabrics/result.json", &dst), 0);
        cr_assert_geq(asprintf(&text, "{\"token\": %" PRIu64 ", \"verb\": \"%s\", \"finished_at\": 1, \"exit\": %d%s%s%s, "
                                      "\"connections\": [%s]}",
                               token, verb, exit, error ? ", \"error\": \"" : "", error ?: "", error ? "\"" : "",
                               connections_json),
                      0);
        cr_assert_eq(write_file_atomic(tmp, text, 0644), 0);
        cr_assert_eq(rename(tmp, dst), 0);
        for (unsigned i = 0; i < 50 && fabrics_watch_busy(manager->fabrics.watch) &&
                             fabrics_watch_token(manager->fabrics.watch) == token;
             i++)
                cr_assert_geq(sd_event_run(manager->event, 100 * 1000), 0);
        /* taken: nothing awaited, or the next request already (a connect after a refused unload) */
        cr_assert(!fabrics_watch_busy(manager->fabrics.watch) || fabrics_watch_token(manager->fabrics.watch) != token,
                  "the answer was not taken");
}

#define CONN(i, outcome, extra)                                                                                      \
        "{\"transport\": \"tcp\", \"traddr\": \"10.0.0." #i "\", \"trsvcid\": \"4420\", \"subsysnqn\": "           \
        "\"nqn.2026-12.test:sub\", \"description\": \"tcp 10.0.0." #i ":4420 nqn.2026-12.test:sub\", "             \
        "\"controller\": \"nvme" #i "\", \"outcome\": \"" outcome "\"" extra "}"

TestSuite(swap_fabrics, .init = setup, .fini = teardown);

Test(swap_fabrics, the_unload_waits_for_the_capture_then_goes_on) {
        uint64_t token;
        StateFile *s;

        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
        cr_assert_eq(manager->swap.state, SWAP_STATE_BLOCKED, "%s", swap_state_to_string(manager->swap.state));
        cr_assert_str_eq(calls(), "fabrics_read", "unloaded before the capture: %s", calls());
        cr_assert_str_eq(request(&token), "capture");
        cr_assert_not_null(strstr(manager->swap.last_blockers, "to capture the NVMe over Fabrics connections"));

        answer("capture", 0, NULL, CONN(1, "captured", ""));
        cr_assert_eq(manager->swap.state, SWAP_STATE_UNLOADED_WAITING_DRIVER, "%s", swap_state_to_string(manager->swap.state));
        cr_assert_not_null(strstr(calls(), "unload"), "%s", calls());
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_DROP,
                                  "tcp 10.0.0.1:4420 nqn.2026-12.test:sub: disconnected by the unload"),
                     1);
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_DROP, "SWAPGUARD_FABRICS_ADDRESS=10.0.0.1:4420"), 1);
        s = state_file();
        cr_assert_not_null(s->fabrics);
        cr_assert_eq(s->fabrics->n, 1);
        cr_assert_eq(s->fabrics->items[0].outcome, NODE_FABRICS_PENDING);
        cr_assert_str_eq(s->fabrics->items[0].address, "10.0.0.1:4420");
        state_file_free(s);
}

Test(swap_fabrics, in_use_the_blockers_are_said_and_no_capture_is_asked_for_yet) {
        uint64_t token;

        script.in_use = true;
        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
        cr_assert_eq(manager->swap.state, SWAP_STATE_BLOCKED);
        cr_assert_str_eq(request(&token), "", "a capture while in use");
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_BLOCKED, "nvme1n1 is mounted on /data"), 1);
        script.in_use = false;
        manager_dispatch(manager, SWAP_EVENT_USAGE_CHANGED);
        cr_assert_str_eq(request(&token), "capture");
        answer("capture", 0, NULL, CONN(1, "captured", ""));
        cr_assert_eq(manager->swap.state, SWAP_STATE_UNLOADED_WAITING_DRIVER, "%s", swap_state_to_string(manager->swap.state));
}

Test(swap_fabrics, no_connection_no_capture) {
        uint64_t token;

        script.n_conn = 0;
        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
        cr_assert_str_eq(calls(), "fabrics_read unload");
        cr_assert_str_eq(request(&token), "");
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_DROP, NULL), 0);
        cr_assert_null(manager->swap.record.fabrics);
}

Test(swap_fabrics, a_silent_unit_keeps_the_stack_and_names_its_journal) {
        /* The deadline as the unit's silence ends it, without waiting 60 s:
         * the capture's answer is a failure with no result. */
        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
        cr_assert_eq(manager->swap.state, SWAP_STATE_BLOCKED);
        cr_assert_eq(manager_fabrics_answered(manager, "capture", NULL,
                                              "nvme-swapguard-fabrics.service did not answer the capture request "
                                              "(token 1) within 60 s: not installed, failed or stuck; see "
                                              "journalctl -u nvme-swapguard-fabrics"),
                     SWAP_FABRICS_NEXT_RECHECK_LATER);
        cr_assert_eq(manager->swap.state, SWAP_STATE_BLOCKED);
        cr_assert_str_eq(calls(), "fabrics_read", "unloaded without a capture: %s", calls());
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_UNIT_FAILED, "journalctl -u nvme-swapguard-fabrics"), 1);
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_UNIT_FAILED, "Not unloading"), 1);
}

Test(swap_fabrics, a_refused_unload_after_the_capture_tidies_the_record_quietly) {
        uint64_t token;

        script.unload = NODE_UNLOAD_REFUSED;
        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
        answer("capture", 0, NULL, CONN(1, "captured", ""));
        cr_assert_eq(manager->swap.state, SWAP_STATE_BLOCKED);
        cr_assert_str_eq(request(&token), "connect");
        answer("connect", 0, NULL, CONN(1, "already-live", ""));
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_RECONNECTED, NULL), 0);
        cr_assert_null(manager->swap.record.fabrics, "a connection never dropped is shown");
}

Test(swap_fabrics, after_the_load_back_pending_and_lost_are_told_and_kept) {
        _cleanup_free_ char *text = NULL, *status = NULL;
        char pending[512], lost[512];
        uint64_t now = now_realtime_usec(), token;
        StateFile *s;

        snprintf(pending, sizeof(pending),
                 CONN(2, "failed", ", \"error_kind\": \"refused\", \"errno\": 111, \"next_try_usec\": %" PRIu64
                                   ", \"give_up_at_usec\": %" PRIu64),
                 now + UINT64_C(10000000), now + UINT64_C(600000000));
        snprintf(lost, sizeof(lost), CONN(3, "lost", ", \"error_kind\": \"no-answer\", \"errno\": 11"));
        swap_fabrics_connect(&manager->fabrics, &manager->swap, &manager->follow, &manager->loop, "after the load");
        cr_assert_str_eq(request(&token), "connect");
        {
                char all[1600];

                snprintf(all, sizeof(all), "%s, %s, %s", CONN(1, "back", ""), pending, lost);
                answer("connect", 3, NULL, all);
        }
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_RECONNECTED, "connected again after the load as nvme1"), 1);
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_PENDING, "not back after the load: refused: Connection refused; next try in"),
                     1);
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_PENDING, "SWAPGUARD_FABRICS_ERROR_KIND=refused"), 1);
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_LOST, "given up after the load"), 1);
        /* The next connect at the pending one's next try, on CLOCK_BOOTTIME. */
        cr_assert(swap_loop_armed(&manager->loop, SWAP_TIMER_FABRICS_RETRY));
        status = swap_fabrics_status(&manager->swap);
        cr_assert_not_null(status);
        cr_assert_not_null(strstr(status, "NVMe-oF: 1 back, 1 pending (next try in "), "%s", status);
        cr_assert_not_null(strstr(status, "s), 1 lost"), "%s", status);

        manager_save(manager, SWAP_SAVE_NOW);
        s = state_file();
        cr_assert_eq(s->fabrics->n, 3);
        cr_assert_eq(s->fabrics->items[0].outcome, NODE_FABRICS_RECONNECTED);
        cr_assert_eq(s->fabrics->items[1].outcome, NODE_FABRICS_PENDING);
        cr_assert_eq(s->fabrics->items[1].error, ECONNREFUSED);
        cr_assert_eq(s->fabrics->items[1].next_try_usec, now + UINT64_C(10000000));
        cr_assert_str_eq(s->fabrics->items[1].error_kind, "refused");
        cr_assert_eq(s->fabrics->items[2].outcome, NODE_FABRICS_LOST);
        cr_assert_eq(status_document_to_json(&(StatusFacts) { .record = s, .version = "test" }, &text), 0);
        cr_assert_not_null(strstr(text, "tcp 10.0.0.2:4420 nqn.2026-12.test:sub: not back yet, tried again"), "%s",
                           text);
        cr_assert_not_null(strstr(text, "tcp 10.0.0.3:4420 nqn.2026-12.test:sub: lost"), "%s", text);
        state_file_free(s);

        /* The retry: the pending one back; the others stay as they were. */
        swap_fabrics_connect(&manager->fabrics, &manager->swap, &manager->follow, &manager->loop, "on a later try");
        answer("connect", 0, NULL, CONN(2, "back", ""));
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_RECONNECTED, "connected again on a later try as nvme2"), 1);
        free(status);
        status = swap_fabrics_status(&manager->swap);
        cr_assert_str_eq(status, "NVMe-oF: 2 back, 0 pending, 1 lost");
}

Test(swap_fabrics, a_failed_unit_is_told_and_asked_again) {
        swap_fabrics_connect(&manager->fabrics, &manager->swap, &manager->follow, &manager->loop, "after the restore");
        answer("connect", 1, "cannot take the lock /run/nvme-swapguard-fabrics/lock", "");
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_UNIT_FAILED,
                                  "connect failed: cannot take the lock /run/nvme-swapguard-fabrics/lock (journalctl -u "
                                  "nvme-swapguard-fabrics)"),
                     1);
        cr_assert(swap_loop_armed(&manager->loop, SWAP_TIMER_FABRICS_RETRY));
}

Test(swap_fabrics, a_stale_answer_is_not_taken_for_the_awaited_one) {
        _cleanup_free_ char *dst = NULL;

        swap_fabrics_connect(&manager->fabrics, &manager->swap, &manager->follow, &manager->loop, "after the load");
        cr_assert_eq(host_path("/run/nvme-swapguard-fabrics/result.json", &dst), 0);
        cr_assert_eq(write_file_atomic(dst, "{\"token\": 1, \"verb\": \"connect\", \"exit\": 0, \"connections\": []}",
                                       0644),
                     0);
        for (unsigned i = 0; i < 3; i++)
                cr_assert_geq(sd_event_run(manager->event, 10 * 1000), 0);
        cr_assert_str_eq(fabrics_watch_busy(manager->fabrics.watch), "connect");
}

Test(swap_fabrics, a_start_with_a_record_asks_for_a_connect_when_a_stack_is_loaded) {
        _cleanup_free_ char *record = NULL;
        uint64_t token;

        cr_assert_eq(host_path("/run/nvme-swapguard-fabrics/record.json", &record), 0);
        cr_assert_eq(write_file_atomic(record, "{\"version\": 2}", 0644), 0);
        manager->swap.state = SWAP_STATE_UNLOADED_WAITING_DRIVER;
        swap_fabrics_start(&manager->fabrics, &manager->swap, &manager->follow, &manager->loop);
        cr_assert_str_eq(request(&token), "", "connect asked for without a transport");
        manager->swap.state = SWAP_STATE_SWAPPED;
        swap_fabrics_start(&manager->fabrics, &manager->swap, &manager->follow, &manager->loop);
        cr_assert_str_eq(request(&token), "connect");
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
        swap_fabrics_container_followed(&manager->follow, &manager->swap, manager->ops, path, TREE_BUILD_PRESENT);
        cr_assert(manager->follow.build_ruled_out);
        cr_assert_str_eq(calls(), "fabrics_read", "%s", calls());
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_NO_TRANSPORT,
                                  "has no build of nvme_tcp, which the node's NVMe over Fabrics connections need "
                                  "(nvme1: tcp 10.0.0.1:4420 nqn.2026-12.test:sub)"),
                     1);
        cr_assert_not_null(strstr(manager->swap.record.message, "no-build"));
}

Test(swap_fabrics, a_container_tree_with_the_transport_is_a_swap) {
        _cleanup_free_ char *path = NULL;

        make_tree("/c/lib/modules/6.1", (const char *const[]) { "nvme-core.ko", "nvme.ko", "nvme-tcp.ko", NULL });
        cr_assert_eq(host_path("/c/lib/modules/6.1", &path), 0);
        swap_fabrics_container_followed(&manager->follow, &manager->swap, manager->ops, path, TREE_BUILD_PRESENT);
        cr_assert_not(manager->follow.build_ruled_out);
        /* A tree not built yet (sources mode) is not judged here. */
        swap_fabrics_container_followed(&manager->follow, &manager->swap, manager->ops, path, TREE_BUILD_ABSENT);
        cr_assert_str_eq(calls(), "fabrics_read", "%s", calls());
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_NO_TRANSPORT, NULL), 0);
}

Test(swap_fabrics, before_a_load_the_capture_decides_the_transports) {
        make_tree("/c/lib/modules/6.1", (const char *const[]) { "nvme-core.ko", "nvme.ko", NULL });
        cr_assert_not(swap_fabrics_tree_lacks_transport(&manager->follow, &manager->swap, "/c/lib/modules/6.1"),
                      "nothing captured");
        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
        answer("capture", 0, NULL, CONN(1, "captured", ""));
        cr_assert(swap_fabrics_tree_lacks_transport(&manager->follow, &manager->swap, "/c/lib/modules/6.1"));
        cr_assert(manager->follow.build_ruled_out);
}

Test(swap_fabrics, observe_reads_and_says_would_without_a_capture) {
        NodeOps *observe = NULL;
        uint64_t token;

        manager = manager_free(manager);
        cr_assert_eq(node_ops_observe_new(&scripted_ops, &observe), 0);
        start_manager(observe);
        cr_assert_eq(swap_fabrics_before_unload(&manager->fabrics, &manager->swap, &manager->follow, manager->ops), 0);
        cr_assert_str_eq(calls(), "fabrics_read", "%s", calls());
        cr_assert_str_eq(request(&token), "", "observe asked for a capture");
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FABRICS_DROP,
                                  "Observe: nvme1: tcp 10.0.0.1:4420 nqn.2026-12.test:sub: would be disconnected by "
                                  "the unload and connected again after the load."),
                     1);
        manager = manager_free(manager);
        node_ops_observe_free(observe);
}

Test(swap_fabrics, the_state_file_round_trips_the_connections) {
        StateFile in = { .state = SWAP_STATE_SWAPPED }, *out = NULL;
        _cleanup_free_ char *text = NULL;

        script.n_conn = 2;
        in.fabrics = connections(&script, NODE_FABRICS_PENDING);
        in.fabrics->items[1].error = ECONNREFUSED;
        in.fabrics->items[1].error_message = strdup("refused: Connection refused");
        in.fabrics->items[1].error_kind = strdup("refused");
        in.fabrics->items[1].next_try_usec = 1764900000000000ULL;
        in.fabrics->items[1].give_up_at_usec = 1764900600000000ULL;
        in.fabrics->items[0].outcome = NODE_FABRICS_LOST;
        cr_assert_eq(state_file_to_json(&in, &text), 0);
        cr_assert_eq(state_file_from_json(text, &out), 0);
        cr_assert_eq(out->fabrics->n, 2);
        cr_assert_eq(out->fabrics->items[0].outcome, NODE_FABRICS_LOST);
        cr_assert_eq(out->fabrics->items[1].error, ECONNREFUSED);
        cr_assert_str_eq(out->fabrics->items[1].error_kind, "refused");
        cr_assert_eq(out->fabrics->items[1].next_try_usec, 1764900000000000ULL);
        cr_assert_eq(out->fabrics->items[1].give_up_at_usec, 1764900600000000ULL);
        cr_assert_str_eq(out->fabrics->items[0].description, "nvme1: tcp 10.0.0.1:4420 nqn.2026-12.test:sub");
        state_file_free(out);
        node_fabrics_free(in.fabrics);
}

/* Found in the VM (layout none): nvme_core and nvme_fabrics without nvme on
 * a node with no NVMe PCI function is a fabrics-only node, not a stack to
 * repair by loading nvme; with NVMe PCI functions (nvme removed behind our
 * back), or a bus that cannot be seen, it is broken. */
/* The daemon's judge of the stack, its settle's timer fired, with no one at
 * work on modules: a first look at a broken stack waits to confirm it (the
 * step's snapshot is forgotten, as a new event of the loop would), and
 * once the confirmation's window is over the second look judges. */
static SwapEvent judge_settled(void) {
        SwapEvent ev;

        manager->stack.settle = (StackSettleState) {};
        swap_snapshot_forget(&manager->step); /* the script changed since the last read */
        ev = manager_judge_stack(manager);
        if (ev >= 0 || manager->stack.settle.suspect_at == 0)
                return ev; /* judged at the first look: not broken */
        manager->stack.settle.suspect_at = 1; /* CLOCK_MONOTONIC: long over */
        swap_snapshot_forget(&manager->step);
        return manager_judge_stack(manager);
}

Test(swap_fabrics, a_fabrics_only_node_is_not_a_broken_stack) {
        script.nvme = NODE_ORIGIN_ABSENT;
        script.nvme_fabrics = NODE_ORIGIN_IN_TREE;
        cr_assert_eq(judge_settled(), _SWAP_EVENT_INVALID);
        script.pci = 2;
        cr_assert_eq(judge_settled(), SWAP_EVENT_STACK_BROKEN);
        script.pci = -1;
        cr_assert_eq(judge_settled(), SWAP_EVENT_STACK_BROKEN);
        script.pci = 0;
        script.nvme_fabrics = NODE_ORIGIN_ABSENT; /* nvme_core alone: broken */
        cr_assert_eq(judge_settled(), SWAP_EVENT_STACK_BROKEN);
}

/* Safety first: connections that cannot be read are not dropped. */
Test(swap_fabrics, unreadable_connections_no_unload) {
        script.read_error = -EIO;
        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
        cr_assert_str_eq(calls(), "fabrics_read", "unloaded without knowing the connections: %s", calls());
        cr_assert_eq(manager->swap.state, SWAP_STATE_FAILED);
        cr_assert_eq(script.nvme, NODE_ORIGIN_IN_TREE);
        cr_assert_eq(entries_with(SWAPGUARD_MESSAGE_FAILED, "Input/output error"), 1);
}
