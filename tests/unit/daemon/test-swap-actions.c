/* SPDX-License-Identifier: Apache-2.0 */
/* The manager's actions against scripted guard outcomes: a Manager built on
 * a NodeOps whose "kernel" is two module origins and a queue of unload
 * outcomes, in a fake root (state file, reload block). Each test feeds
 * events through manager_dispatch() and checks the calls made to the guard,
 * the state reached and the journal entries written (captured from stderr,
 * where the log goes outside systemd). */

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/host-root.h"
#include "publish/log.h"
#include "manager-dispatch.h"
#include "manager.h"
#include "publish/message-ids.h"
#include "swap/pod-end.h"
#include "swap/stack-judge.h"
#include "swap/swap-note.h"
#include "swap/swap-report.h"
#include "util/strv.h"

#define MAX_OUTCOMES 8
#define MAX_BLOCKERS 4

typedef struct Script {
        NodeOrigin nvme_core, nvme;                 /* the "kernel" */
        NodeUnloadOutcome unload[MAX_OUTCOMES];     /* one per unload call, in order */
        size_t n_unload, unload_calls;
        const char *blockers[MAX_BLOCKERS + 1];      /* in use now (NULL-terminated) */
        bool restore_fails;
        bool driverless;                             /* NVMe PCI functions with no driver */
        char **calls;                                /* "unload", "restore", ... in order */
        char **unload_recorded;                      /* what the last unload call was given */
        const char *kept;                            /* a REMOVED unload keeps this shared module */
        size_t check_usage_calls;
} Script;

static Script script;
static Manager *manager;
static FILE *log_file;
static char root[] = "/tmp/test-swap-actions-XXXXXX";

static int fake_read_stack(void *userdata, NodeStack **ret) {
        Script *s = userdata;
        NodeStack *g = calloc(1, sizeof(*g));

        cr_assert_not_null(g);
        g->modules = calloc(2, sizeof(NodeModule));
        cr_assert_not_null(g->modules);
        g->modules[0] = (NodeModule) { .name = strdup("nvme_core"), .origin = s->nvme_core };
        g->modules[1] = (NodeModule) { .name = strdup("nvme"), .origin = s->nvme };
        g->n_modules = 2;
        *ret = g;
        return 0;
}

static void blockers_fill(const Script *s, NodeBlockers *b) {
        for (size_t i = 0; s->blockers[i]; i++) {
                b->items = realloc(b->items, (b->n + 1) * sizeof(NodeBlocker));
                cr_assert_not_null(b->items);
                b->items[b->n++] = (NodeBlocker) { .device = strdup("nvme0n1p1"), .kind = strdup("mounted"),
                                                    .where = strdup("/data"), .description = strdup(s->blockers[i]) };
        }
}

static int fake_unload(void *userdata, char *const *recorded, NodeUnloadResult **ret) {
        Script *s = userdata;
        NodeUnloadResult *u = calloc(1, sizeof(*u));

        cr_assert_not_null(u);
        strv_free(s->unload_recorded);
        s->unload_recorded = NULL;
        cr_assert_eq(strv_copy(recorded, &s->unload_recorded), 0);
        cr_assert_lt(s->unload_calls, s->n_unload, "unexpected unload call #%zu", s->unload_calls + 1);
        (void) strv_extend(&s->calls, "unload");
        u->outcome = s->unload[s->unload_calls++];
        switch (u->outcome) {
        case NODE_UNLOAD_REMOVED:
                (void) strv_extend(&u->removed, "nvme");
                (void) strv_extend(&u->removed, "nvme_core");
                /* The library takes the build's shared modules out with it
                 * when the record names them (removal-plan.h). */
                if (strv_contains(recorded, "nvme_auth"))
                        (void) strv_extend(&u->removed, "nvme_auth");
                if (s->kept)
                        (void) strv_extend(&u->kept, s->kept);
                s->nvme = s->nvme_core = NODE_ORIGIN_ABSENT;
                break;
        case NODE_UNLOAD_REFUSED:
                blockers_fill(s, &u->blockers);
                break;
        case NODE_UNLOAD_FAILED_UNRESTORED:
                /* nvme went, nvme_core refused, nvme could not be put back. */
                s->nvme = NODE_ORIGIN_ABSENT;
                u->failed_module = strdup("nvme_core");
                u->failed_errno = EBUSY;
                break;
        default:
                u->failed_module = strdup("nvme");
                u->failed_errno = EBUSY;
                break;
        }
        *ret = u;
        return 0;
}

static int fake_restore(void *userdata, char *const *modules, NodeLoadResult **ret) {
        Script *s = userdata;
        NodeLoadResult *l = calloc(1, sizeof(*l));

        cr_assert_not_null(l);
        (void) strv_extend(&s->calls, "restore");
        if (s->restore_fails) {
                l->failed_module = strdup("nvme_core");
                l->failed_errno = ENOEXEC;
                l->failed_reason = strdup("scripted failure");
        } else {
                s->nvme = s->nvme_core = NODE_ORIGIN_IN_TREE;
                (void) strv_extend(&l->loaded, "nvme_core");
                (void) strv_extend(&l->loaded, "nvme");
        }
        *ret = l;
        return 0;
}

static int fake_load_from(void *userdata, const char *tree, int root_fd, char *const *modules, unsigned timeout_sec,
                          NodeLoadResult **ret) {
        Script *s = userdata;

        (void) strv_extend(&s->calls, "load");
        *ret = calloc(1, sizeof(NodeLoadResult));
        s->nvme = s->nvme_core = NODE_ORIGIN_NVIDIA;
        return *ret ? 0 : -ENOMEM;
}

static int fake_check_usage(void *userdata, NodeBlockers **ret) {
        Script *s = userdata;
        NodeBlockers *b = calloc(1, sizeof(*b));

        cr_assert_not_null(b);
        s->check_usage_calls++;
        blockers_fill(s, b);
        *ret = b;
        return 0;
}

static int fake_scan_namespaces(void *userdata, NodeNamespaces **ret) {
        *ret = calloc(1, sizeof(NodeNamespaces));
        return *ret ? 0 : -ENOMEM;
}

static int fake_nvme_driverless(void *userdata, bool *ret) {
        *ret = ((Script *) userdata)->driverless;
        return 0;
}

static const NodeOps scripted_ops = {
        .unload = fake_unload,
        .load_from = fake_load_from,
        .restore = fake_restore,
        .read_stack = fake_read_stack,
        .check_usage = fake_check_usage,
        .scan_namespaces = fake_scan_namespaces,
        .nvme_driverless = fake_nvme_driverless,
        .userdata = &script,
};

static void setup(void) {
        Config *c = NULL;
        char cmd[128];

        script = (Script) { .nvme_core = NODE_ORIGIN_IN_TREE, .nvme = NODE_ORIGIN_IN_TREE };
        cr_assert_not_null(mkdtemp(root));
        snprintf(cmd, sizeof(cmd), "mkdir -p %s/run", root);
        cr_assert_eq(system(cmd), 0);
        cr_assert_eq(host_root_set(root), 0);
        /* The journal entries, one line each with their KEY=value fields. */
        log_file = tmpfile();
        cr_assert_not_null(log_file);
        cr_assert_geq(dup2(fileno(log_file), STDERR_FILENO), 0);
        log_set_target(LOG_TARGET_STDERR);
        cr_assert_eq(config_new_default(&c), 0);
        cr_assert_eq(manager_new(&(ManagerOptions) { .config_path = "/nonexistent.conf", .config_optional = true,
                                                     .ops = &scripted_ops },
                                 c, &manager),
                     0);
        manager->swap.started = true; /* as after the first reconcile: events drive the machine */
}

static void teardown(void) {
        char cmd[128];

        manager = manager_free(manager);
        script.calls = strv_free(script.calls);
        script.unload_recorded = strv_free(script.unload_recorded);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
        (void) system(cmd);
}

/* How many journal entries with this MESSAGE_ID were written so far. */
static unsigned entries(const char *message_id) {
        char *line = NULL, needle[64];
        size_t n = 0;
        unsigned count = 0;

        fflush(stderr);
        snprintf(needle, sizeof(needle), "MESSAGE_ID=%s", message_id);
        rewind(log_file);
        while (getline(&line, &n, log_file) > 0)
                if (strstr(line, needle))
                        count++;
        free(line);
        return count;
}

/* Whether some journal entry so far contains text. */
static bool log_has(const char *text) {
        char *line = NULL;
        size_t n = 0;
        bool found = false;

        fflush(stderr);
        rewind(log_file);
        while (!found && getline(&line, &n, log_file) > 0)
                found = strstr(line, text) != NULL;
        free(line);
        return found;
}

static char *calls(void) {
        static char buf[256];
        size_t len = 0;

        buf[0] = '\0';
        STRV_FOREACH(c, script.calls)
                len += (size_t) snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? " " : "", *c);
        return buf;
}

TestSuite(swap_actions, .init = setup, .fini = teardown);

Test(swap_actions, a_refusal_reports_its_blockers_once) {
        script.unload[script.n_unload++] = NODE_UNLOAD_REFUSED;
        script.blockers[0] = "nvme0n1p1 is mounted on /data";

        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
        cr_assert_eq(manager->swap.state, SWAP_STATE_BLOCKED);
        cr_assert_eq(entries(SWAPGUARD_MESSAGE_BLOCKED), 1);

        /* Re-checks that find the same blockers say nothing new. */
        for (int i = 0; i < 3; i++)
                manager_dispatch(manager, SWAP_EVENT_USAGE_CHANGED);
        cr_assert_eq(script.check_usage_calls, 3);
        cr_assert_eq(manager->swap.state, SWAP_STATE_BLOCKED);
        cr_assert_eq(entries(SWAPGUARD_MESSAGE_BLOCKED), 1, "the same blockers were reported again");
        cr_assert_eq(strv_length(manager->swap.record.blockers), 1);

        /* Different blockers are news: one entry per blocker, once. */
        script.blockers[1] = "swap on nvme0n1p2";
        manager_dispatch(manager, SWAP_EVENT_USAGE_CHANGED);
        manager_dispatch(manager, SWAP_EVENT_USAGE_CHANGED);
        cr_assert_eq(entries(SWAPGUARD_MESSAGE_BLOCKED), 3);
        cr_assert_eq(strv_length(manager->swap.record.blockers), 2);

        /* Cleared: the re-check unloads, and the record forgets the blockers. */
        script.blockers[0] = script.blockers[1] = NULL;
        script.unload[script.n_unload++] = NODE_UNLOAD_REMOVED;
        manager_dispatch(manager, SWAP_EVENT_USAGE_CHANGED);
        cr_assert_eq(manager->swap.state, SWAP_STATE_UNLOADED_WAITING_DRIVER);
        cr_assert_str_eq(calls(), "unload unload");
        cr_assert_null(manager->swap.record.blockers);
        cr_assert_null(manager->swap.last_blockers);
        cr_assert_eq(entries(SWAPGUARD_MESSAGE_BLOCKED), 3);
        cr_assert_eq(entries(SWAPGUARD_MESSAGE_UNLOADED), 1);
}

Test(swap_actions, an_unload_failed_unrestored_leads_to_a_restore) {
        script.unload[script.n_unload++] = NODE_UNLOAD_FAILED_UNRESTORED;

        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
        cr_assert_str_eq(calls(), "unload restore");
        cr_assert_eq(manager->swap.state, SWAP_STATE_RESTORED);
        cr_assert_eq(script.nvme, NODE_ORIGIN_IN_TREE);
        cr_assert_eq(entries(SWAPGUARD_MESSAGE_FAILED), 1);
        cr_assert_eq(entries(SWAPGUARD_MESSAGE_RESTORED), 1);
        /* What the unload took away is what the restore was asked for. */
        cr_assert(strv_contains(manager->swap.record.modules_before, "nvme"));
        cr_assert(strv_contains(manager->swap.record.modules_before, "nvme_core"));
}

Test(swap_actions, an_unrestored_failure_whose_restore_fails_is_failed) {
        script.unload[script.n_unload++] = NODE_UNLOAD_FAILED_UNRESTORED;
        script.restore_fails = true;

        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
        cr_assert_str_eq(calls(), "unload restore");
        cr_assert_eq(manager->swap.state, SWAP_STATE_FAILED);
        cr_assert_not_null(strstr(manager->swap.failure, "nvme_core"), "failure: %s", manager->swap.failure);
        cr_assert_eq(entries(SWAPGUARD_MESSAGE_RESTORED), 0);
}

/* A daemon killed mid-load whose container then vanished: NVIDIA's
 * nvme_core is loaded alone, the container exits while we wait, and the
 * guard's unload of that half has the given outcome. */
static void container_exits_over_a_half_loaded_build(NodeUnloadOutcome outcome) {
        manager->swap.state = SWAP_STATE_UNLOADED_WAITING_DRIVER;
        script.nvme_core = NODE_ORIGIN_NVIDIA;
        script.nvme = NODE_ORIGIN_ABSENT;
        script.unload[script.n_unload++] = outcome;
        manager_dispatch(manager, SWAP_EVENT_CONTAINER_EXITED);
}

Test(swap_actions, a_half_loaded_build_is_removed_before_the_restore) {
        container_exits_over_a_half_loaded_build(NODE_UNLOAD_REMOVED);
        cr_assert_str_eq(calls(), "unload restore");
        cr_assert_eq(manager->swap.state, SWAP_STATE_RESTORED);
        cr_assert_eq(script.nvme_core, NODE_ORIGIN_IN_TREE);
}

Test(swap_actions, a_half_loaded_build_that_cannot_go_is_not_restored_over) {
        container_exits_over_a_half_loaded_build(NODE_UNLOAD_REFUSED);
        cr_assert_str_eq(calls(), "unload", "restored over a half-loaded build: %s", calls());
        cr_assert_eq(manager->swap.state, SWAP_STATE_FAILED);
        cr_assert_eq(script.nvme_core, NODE_ORIGIN_NVIDIA);
}

Test(swap_actions, nothing_half_loaded_restores_right_away) {
        manager->swap.state = SWAP_STATE_UNLOADED_WAITING_DRIVER;
        script.nvme_core = script.nvme = NODE_ORIGIN_ABSENT;

        manager_dispatch(manager, SWAP_EVENT_CONTAINER_EXITED);
        cr_assert_str_eq(calls(), "restore");
        cr_assert_eq(manager->swap.state, SWAP_STATE_RESTORED);
}

/* SIGTERM while unloaded: stop-requested restores and ends in idle, with
 * the stop's own entry rather than an abandoned swap's. */
Test(swap_actions, a_stop_while_unloaded_restores_to_idle) {
        manager->swap.state = SWAP_STATE_UNLOADED_WAITING_DRIVER;
        script.nvme_core = script.nvme = NODE_ORIGIN_ABSENT;
        manager->swap.stopping = true;

        manager_dispatch(manager, SWAP_EVENT_STOP_REQUESTED);
        cr_assert_str_eq(calls(), "restore");
        cr_assert_eq(manager->swap.state, SWAP_STATE_IDLE);
        cr_assert_eq(entries(SWAPGUARD_MESSAGE_STOP_RESTORED), 1);
        cr_assert_eq(entries(SWAPGUARD_MESSAGE_RESTORED), 0);
}

Test(swap_actions, a_stop_elsewhere_touches_nothing) {
        script.unload[script.n_unload++] = NODE_UNLOAD_REFUSED;
        script.blockers[0] = "nvme0n1p1 is mounted on /data";
        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
        cr_assert_eq(manager->swap.state, SWAP_STATE_BLOCKED);
        manager->swap.stopping = true;

        manager_dispatch(manager, SWAP_EVENT_STOP_REQUESTED);
        cr_assert_str_eq(calls(), "unload");
        cr_assert_eq(manager->swap.state, SWAP_STATE_BLOCKED);
        cr_assert_eq(entries(SWAPGUARD_MESSAGE_STOP_RESTORED), 0);
}

/* nvme went behind our back just before the container started (before the
 * stack's health was judged): the drives still need it after the swap. */
Test(swap_actions, nvme_gone_from_under_driverless_drives_is_still_wanted) {
        script.nvme = NODE_ORIGIN_ABSENT;
        script.driverless = true;
        script.unload[script.n_unload++] = NODE_UNLOAD_REMOVED;

        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
        cr_assert_eq(manager->swap.state, SWAP_STATE_UNLOADED_WAITING_DRIVER);
        cr_assert(strv_contains(manager->swap.record.modules_before, "nvme_core"));
        cr_assert(strv_contains(manager->swap.record.modules_before, "nvme"),
                  "nvme left out of what the load must bring: a swap with no PCIe driver");
}

/* A fabrics-only node (no NVMe PCI function): nothing is added. */
Test(swap_actions, nvme_core_alone_on_a_fabrics_node_stays_alone) {
        script.nvme = NODE_ORIGIN_ABSENT;
        script.unload[script.n_unload++] = NODE_UNLOAD_REMOVED;

        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
        cr_assert_eq(manager->swap.state, SWAP_STATE_UNLOADED_WAITING_DRIVER);
        cr_assert(strv_contains(manager->swap.record.modules_before, "nvme_core"));
        cr_assert_not(strv_contains(manager->swap.record.modules_before, "nvme"));
}

/* Seen under TCG: a restarted attempt's entrypoint removed the
 * ready file while the daemon unloaded for it; the removal's event was still
 * queued, so the path watch's flag said "there". What the table decides on
 * is asked of the disk: no load from a tree with no build yet. */
static void ready_file_cached_present(bool on_disk) {
        char cmd[256];

        snprintf(cmd, sizeof(cmd), "mkdir -p %s/run/mellanox/drivers", root);
        cr_assert_eq(system(cmd), 0);
        if (on_disk) {
                snprintf(cmd, sizeof(cmd), "touch %s/run/mellanox/drivers/.driver-ready", root);
                cr_assert_eq(system(cmd), 0);
        }
        manager->ready_present = true; /* the watch's last word */
        script.unload[script.n_unload++] = NODE_UNLOAD_REMOVED;
        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
}

Test(swap_actions, a_ready_file_gone_before_its_event_is_not_loaded_from) {
        ready_file_cached_present(false);
        cr_assert_str_eq(calls(), "unload", "loaded at a ready file that is gone: %s", calls());
        cr_assert_eq(manager->swap.state, SWAP_STATE_UNLOADED_WAITING_DRIVER);
        cr_assert(!manager->ready_present);
}

/* The same with the file there: the table goes on to the load (no
 * container is followed in this fixture, so the load finds no tree and the
 * in-tree stack is put back: the point is that it did not wait). */
Test(swap_actions, a_ready_file_still_there_is_acted_on) {
        ready_file_cached_present(true);
        cr_assert_str_eq(calls(), "unload restore");
        cr_assert_eq(manager->swap.state, SWAP_STATE_RESTORED);
        cr_assert(manager->ready_present);
}

/* What a load brought from the container's tree is recorded at
 * load (its shared modules included, never what was loaded before it, like
 * openibd's mlx_compat), and that record goes to the unload of the build. */
Test(swap_actions, a_load_records_what_came_from_the_tree) {
        NodeLoadResult l = {};

        cr_assert_eq(strv_extend(&l.from_tree, "nvme_auth"), 0);
        cr_assert_eq(strv_extend(&l.from_tree, "nvme_core"), 0);
        cr_assert_eq(strv_extend(&l.from_tree, "nvme"), 0);
        cr_assert_eq(strv_extend(&l.already, "mlx_compat"), 0);
        swap_note_loaded(&manager->swap, &l);
        cr_assert_eq(strv_length(manager->swap.record.build_modules), 3);
        cr_assert(strv_contains(manager->swap.record.build_modules, "nvme_auth"));
        cr_assert_not(strv_contains(manager->swap.record.build_modules, "mlx_compat"),
                      "openibd's mlx_compat recorded as the build's: the unload would take it");
        strv_free(l.from_tree);
        strv_free(l.already);
}

Test(swap_actions, the_record_of_the_build_goes_to_its_unload) {
        cr_assert_eq(strv_extend(&manager->swap.record.build_modules, "nvme_core"), 0);
        cr_assert_eq(strv_extend(&manager->swap.record.build_modules, "nvme"), 0);
        cr_assert_eq(strv_extend(&manager->swap.record.build_modules, "nvme_auth"), 0);
        cr_assert_eq(strv_extend(&manager->swap.record.build_modules, "nvme_keyring"), 0);
        /* (The scripted kernel's origins stay in-tree: what is under test is
         * the record's way to the unload, not the lifecycle over a build.) */
        script.kept = "nvme_keyring: held by nvmet";
        script.unload[script.n_unload++] = NODE_UNLOAD_REMOVED;

        manager_dispatch(manager, SWAP_EVENT_CONTAINER_STARTED);
        cr_assert_eq(manager->swap.state, SWAP_STATE_UNLOADED_WAITING_DRIVER, "state %s, calls %s", swap_state_to_string(manager->swap.state), calls());
        cr_assert(strv_contains(script.unload_recorded, "nvme_auth"), "the unload was not given the record");
        /* No out-of-tree stack any more: the record of its build goes with
         * it (swap-lifecycle.c, with build_container). */
        cr_assert_null(manager->swap.record.build_modules);
        /* The notice of the unload, and a warning naming the module that stayed. */
        cr_assert_eq(entries(SWAPGUARD_MESSAGE_UNLOADED), 2);
        cr_assert(log_has("nvme_keyring: held by nvmet"), "the module that stayed is not named");
}

/* Seen under TCG with a pod ended with RESTORE_DRIVER_ON_POD_TERMINATION:
 * its cleanup removed nvme, then nvme_core, and the udev watch handed both
 * uevents over in one wakeup, one event of the loop. The second was judged
 * on the stack read for the first (nvme_core still there): no removal seen,
 * "swapped" with no NVMe driver at all. Each uevent is judged on the stack
 * as it is after it. */
static int two_removals_in_one_wakeup(sd_event_source *s, void *userdata) {
        Manager *m = userdata;

        script.nvme = NODE_ORIGIN_ABSENT;
        manager_uevent(m, UDEV_WATCH_MODULE_REMOVE, "nvme");
        script.nvme_core = NODE_ORIGIN_ABSENT;
        manager_uevent(m, UDEV_WATCH_MODULE_REMOVE, "nvme_core");
        return sd_event_exit(sd_event_source_get_event(s), 0);
}

Test(swap_actions, each_module_removal_of_one_wakeup_sees_the_stack_after_it) {
        sd_event_source *defer = NULL;

        manager->swap.state = SWAP_STATE_SWAPPED;
        script.nvme_core = script.nvme = NODE_ORIGIN_NVIDIA;
        cr_assert_eq(sd_event_add_defer(manager->event, &defer, two_removals_in_one_wakeup, manager), 0);
        cr_assert_eq(sd_event_loop(manager->event), 0);
        sd_event_source_unref(defer);
        cr_assert_str_eq(calls(), "restore", "the stack's removal went unseen: calls '%s'", calls());
        cr_assert_eq(manager->swap.state, SWAP_STATE_RESTORED, "state %s with no NVMe driver loaded",
                     swap_state_to_string(manager->swap.state));
}

/* The same end by another way: whatever hid the removal (a uevent lost or
 * judged too early), the stack's settled look says "nothing loaded" while
 * the state says swapped: that is its removal, and the in-tree stack goes
 * back. With the build loaded, the look says nothing. */
Test(swap_actions, a_settled_look_at_no_stack_while_swapped_is_its_removal) {
        manager->swap.state = SWAP_STATE_SWAPPED;
        script.nvme_core = script.nvme = NODE_ORIGIN_NVIDIA;
        cr_assert_eq(manager_judge_stack(manager), _SWAP_EVENT_INVALID, "a loaded build taken for a removal");
        script.nvme_core = script.nvme = NODE_ORIGIN_ABSENT;
        /* A first look (the scripted stack changed without a uevent: the
         * judge would wait for quiet first) */
        manager->stack.settle = (StackSettleState) {};
        SwapEvent ev = manager_judge_stack(manager);
        cr_assert_eq(ev, SWAP_EVENT_STACK_GONE, "the settled look said %s", swap_event_to_string(ev));
        manager_dispatch(manager, ev);
        cr_assert_str_eq(calls(), "restore");
        cr_assert_eq(manager->swap.state, SWAP_STATE_RESTORED);
}

/* The pod's end, its wait over: the container took its build out itself,
 * and nothing of the stack is left while the state still says swapped (the
 * removal's uevents not judged yet): the in-tree stack goes back now. */
Test(swap_actions, a_pod_end_that_finds_no_stack_at_all_puts_the_in_tree_one_back) {
        manager->swap.state = SWAP_STATE_SWAPPED;
        script.nvme_core = script.nvme = NODE_ORIGIN_ABSENT;
        manager->follow.pod_end.container_id = strdup("0123456789abcdef");
        cr_assert_not_null(manager->follow.pod_end.container_id);
        SwapNodeView node = manager_node_view(manager);
        SwapEvent ev = pod_end_waited(&manager->follow.pod_end, &manager->swap, &node);
        cr_assert_eq(ev, SWAP_EVENT_STACK_GONE, "the pod's end said %s", swap_event_to_string(ev));
        manager_dispatch(manager, ev);
        cr_assert_str_eq(calls(), "restore");
        cr_assert_eq(manager->swap.state, SWAP_STATE_RESTORED);
}

/* ... and with the in-tree stack there (its cleanup loaded it), nothing. */
Test(swap_actions, a_pod_end_that_finds_the_in_tree_stack_does_nothing) {
        manager->swap.state = SWAP_STATE_SWAPPED;
        manager->follow.pod_end.container_id = strdup("0123456789abcdef");
        cr_assert_not_null(manager->follow.pod_end.container_id);
        SwapNodeView node = manager_node_view(manager);
        cr_assert_eq(pod_end_waited(&manager->follow.pod_end, &manager->swap, &node), _SWAP_EVENT_INVALID);
        cr_assert_str_eq(calls(), "");
}
