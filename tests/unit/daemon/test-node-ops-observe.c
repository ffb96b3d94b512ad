/* SPDX-License-Identifier: Apache-2.0 */
/* node-ops-observe.c over a scripted inner NodeOps that counts every call:
 * reads pass through, the changes (unload, load_from, pin) are never
 * called, and their rehearsals say what they would do. Then a Manager in
 * Mode=observe walks a driver container's life over it. */

#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "node/node-ops-observe.h"
#include "util/strv.h"

typedef struct Inner {
        NodeOrigin origin;          /* of nvme_core and nvme alike */
        const char *in_use;          /* a blocker's description, or NULL */
        unsigned reads, usage_checks, unloads, loads, restores, pins, plans;
} Inner;

static Inner inner;

static int read_stack(void *u, NodeStack **ret) {
        Inner *s = u;
        NodeStack *g = calloc(1, sizeof(*g));

        cr_assert_not_null(g);
        s->reads++;
        g->modules = calloc(2, sizeof(NodeModule));
        g->modules[0] = (NodeModule) { .name = strdup("nvme_core"), .origin = s->origin };
        g->modules[1] = (NodeModule) { .name = strdup("nvme"), .origin = s->origin };
        g->n_modules = 2;
        *ret = g;
        return 0;
}

static int check_usage(void *u, NodeBlockers **ret) {
        Inner *s = u;
        NodeBlockers *b = calloc(1, sizeof(*b));

        cr_assert_not_null(b);
        s->usage_checks++;
        if (s->in_use) {
                b->items = calloc(1, sizeof(NodeBlocker));
                b->items[0] = (NodeBlocker) { .device = strdup("nvme0n1p2"), .kind = strdup("mounted"),
                                               .where = strdup("/var/lib/containers"),
                                               .description = strdup(s->in_use) };
                b->n = 1;
        }
        *ret = b;
        return 0;
}

static int unload(void *u, char *const *recorded, NodeUnloadResult **ret) {
        ((Inner *) u)->unloads++;
        return -EPERM;
}

static int load_from(void *u, const char *tree, int root_fd, char *const *modules, unsigned t, NodeLoadResult **ret) {
        ((Inner *) u)->loads++;
        return -EPERM;
}

static int restore(void *u, char *const *modules, NodeLoadResult **ret) {
        Inner *s = u;

        s->restores++;
        s->origin = NODE_ORIGIN_IN_TREE;
        *ret = calloc(1, sizeof(NodeLoadResult));
        return *ret ? 0 : -ENOMEM;
}

static int pin_refresh(void *u, NodePin **ret) {
        ((Inner *) u)->pins++;
        return -EPERM;
}

static void pin_release(void *u) {
        ((Inner *) u)->pins++;
}

static int scan_namespaces(void *u, NodeNamespaces **ret) {
        *ret = calloc(1, sizeof(NodeNamespaces));
        return *ret ? 0 : -ENOMEM;
}

/* The shape of node-ops-real.c's unload_plan: the library's dry run. */
static int unload_plan(void *u, char *const *recorded, NodeUnloadResult **ret) {
        NodeUnloadResult *g = calloc(1, sizeof(*g));

        ((Inner *) u)->plans++;
        g->outcome = NODE_UNLOAD_WOULD_REMOVE;
        (void) strv_extend(&g->removed, "nvme");
        (void) strv_extend(&g->removed, "nvme_core");
        (void) strv_extend(&g->removed, "nvme_auth");
        *ret = g;
        return 0;
}

static const NodeOps scripted = {
        .unload = unload,
        .load_from = load_from,
        .restore = restore,
        .read_stack = read_stack,
        .check_usage = check_usage,
        .scan_namespaces = scan_namespaces,
        .pin_refresh = pin_refresh,
        .pin_release = pin_release,
        .userdata = &inner,
};

static void setup(void) {
        inner = (Inner) { .origin = NODE_ORIGIN_IN_TREE };
}

static void no_change_was_asked(void) {
        cr_assert_eq(inner.unloads, 0, "observe called the real unload");
        cr_assert_eq(inner.loads, 0, "observe called the real load");
        cr_assert_eq(inner.pins, 0, "observe pinned");
}

TestSuite(observe, .init = setup);

Test(observe, the_wrapper_never_pins_and_says_it_observes) {
        NodeOps *o = NULL;

        cr_assert_eq(node_ops_observe_new(&scripted, &o), 0);
        cr_assert(o->observe);
        cr_assert_null(o->pin_refresh, "the pin raises nvme's refcount: observe must not hold it");
        cr_assert_null(o->pin_release);
        cr_assert(!scripted.observe);
        node_ops_observe_free(o);
}

Test(observe, unload_is_rehearsed_with_the_reads) {
        NodeOps *o = NULL;
        NodeUnloadResult *u = NULL;

        cr_assert_eq(node_ops_observe_new(&scripted, &o), 0);
        cr_assert_eq(o->unload(o->userdata, NULL, &u), 0);
        cr_assert_eq(u->outcome, NODE_UNLOAD_WOULD_REMOVE);
        cr_assert(strv_contains(u->removed, "nvme") && strv_contains(u->removed, "nvme_core"));
        cr_assert_eq(inner.usage_checks, 1);
        u = node_unload_result_free(u);

        inner.in_use = "/dev/nvme0n1p2 mounted at /var/lib/containers";
        cr_assert_eq(o->unload(o->userdata, NULL, &u), 0);
        cr_assert_eq(u->outcome, NODE_UNLOAD_REFUSED);
        cr_assert_eq(u->blockers.n, 1);
        cr_assert_str_eq(u->blockers.items[0].where, "/var/lib/containers");
        u = node_unload_result_free(u);

        inner.in_use = NULL;
        inner.origin = NODE_ORIGIN_ABSENT;
        cr_assert_eq(o->unload(o->userdata, NULL, &u), 0);
        cr_assert_eq(u->outcome, NODE_UNLOAD_NOT_LOADED);
        u = node_unload_result_free(u);
        no_change_was_asked();
        node_ops_observe_free(o);
}

Test(observe, unload_uses_the_inner_dry_run_when_there_is_one) {
        NodeOps inner_ops = scripted, *o = NULL;
        NodeUnloadResult *u = NULL;

        inner_ops.unload_plan = unload_plan;
        cr_assert_eq(node_ops_observe_new(&inner_ops, &o), 0);
        cr_assert_eq(o->unload(o->userdata, NULL, &u), 0);
        cr_assert_eq(inner.plans, 1);
        cr_assert(strv_contains(u->removed, "nvme_auth"), "the library's plan, not the loaded list");
        node_unload_result_free(u);
        no_change_was_asked();
        node_ops_observe_free(o);
}

Test(observe, load_and_restore_are_rehearsed) {
        char *const mods[] = { (char *) "nvme_core", (char *) "nvme", NULL };
        NodeOps *o = NULL;
        NodeLoadResult *l = NULL;

        cr_assert_eq(node_ops_observe_new(&scripted, &o), 0);
        cr_assert_eq(o->load_from(o->userdata, "/proc/1/root/lib/modules/x", -1, mods, 60, &l), 0);
        cr_assert(l->would);
        cr_assert(strv_length(l->loaded) == 2 && strv_contains(l->loaded, "nvme_core") && strv_contains(l->loaded, "nvme"));
        l = node_load_result_free(l);

        cr_assert_eq(o->restore(o->userdata, NULL, &l), 0);
        cr_assert(l->would, "the in-tree stack is loaded: a restore is only said");
        cr_assert_eq(inner.restores, 0);
        l = node_load_result_free(l);
        no_change_was_asked();
        node_ops_observe_free(o);
}

/* The one exception: no stack module loaded at all (an enforce instance
 * killed mid-swap before the switch): the node gets its driver back. */
Test(observe, a_driverless_node_is_restored_for_real) {
        NodeOps *o = NULL;
        NodeLoadResult *l = NULL;

        inner.origin = NODE_ORIGIN_ABSENT;
        cr_assert_eq(node_ops_observe_new(&scripted, &o), 0);
        cr_assert_eq(o->restore(o->userdata, NULL, &l), 0);
        cr_assert(!l->would);
        cr_assert_eq(inner.restores, 1);
        node_load_result_free(l);
        no_change_was_asked();
        node_ops_observe_free(o);
}
