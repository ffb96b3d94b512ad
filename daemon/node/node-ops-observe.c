/* SPDX-License-Identifier: Apache-2.0 */

/* Observe at the guard seam: the manager and its state table run
 * unchanged; what changes is that every action comes back as what it would
 * have done. The table turns those outcomes (NODE_UNLOAD_WOULD_REMOVE, a
 * load result with `would`) into its observe states, would-unload and
 * would-swap (swap-state.c), so the checks at the ready file still run
 * against the real node: its stack is still the in-tree one, never a
 * pretended absent one. A pretend stack would mislead everything else that
 * reads the node (the stack's health, reconcile after a switch to enforce,
 * the module uevents of a driver container that loads its own build).
 *
 * Why no pin in observe: the pin holds the controllers of namespaces in use
 * open, which raises nvme's refcount in /proc/modules. Observe promises an
 * admin that it changes nothing; the pin only protects a swap that observe
 * never makes (a driver container's `modprobe -r nvme` does as it would
 * without the daemon, which is what the admin runs today). */

#include <errno.h>
#include <stdlib.h>

#include "node/node-ops-observe.h"
#include "util/macro.h"
#include "util/strv.h"

typedef struct Observe {
        const NodeOps *inner;
} Observe;

#define INNER(u) (((Observe *) (u))->inner)

static int observe_read_stack(void *u, NodeStack **ret) {
        return INNER(u)->read_stack(INNER(u)->userdata, ret);
}

static int observe_read_stack_hooks(void *u, NodeStack **ret) {
        return node_read_stack_hooks(INNER(u), ret);
}

static int observe_read_hooks(void *u, NodeStack *stack) {
        return INNER(u)->read_hooks(INNER(u)->userdata, stack);
}

static int observe_check_usage(void *u, NodeBlockers **ret) {
        return INNER(u)->check_usage(INNER(u)->userdata, ret);
}

static int observe_scan_namespaces(void *u, NodeNamespaces **ret) {
        return INNER(u)->scan_namespaces(INNER(u)->userdata, ret);
}

static int observe_nvme_driverless(void *u, bool *ret) {
        if (!INNER(u)->nvme_driverless) {
                *ret = false;
                return 0;
        }
        return INNER(u)->nvme_driverless(INNER(u)->userdata, ret);
}

static int observe_check_gds(void *u, char *const *trees, const NodeModule *nvme, NodeGds **ret) {
        if (!INNER(u)->check_gds)
                return -EOPNOTSUPP;
        return INNER(u)->check_gds(INNER(u)->userdata, trees, nvme, ret);
}

/* Without the library's dry run (scripted inner ops): the usage check and
 * the loaded modules, which is what the unload refuses on and removes. */
static int rehearse_unload(const NodeOps *inner, NodeUnloadResult **ret) {
        _cleanup_(node_unload_result_freep) NodeUnloadResult *g = calloc(1, sizeof(*g));
        _cleanup_(node_blockers_freep) NodeBlockers *b = NULL;
        _cleanup_(node_stack_freep) NodeStack *stack = NULL;
        int r;

        if (!g)
                return -ENOMEM;
        r = inner->read_stack(inner->userdata, &stack);
        if (r < 0)
                return r;
        r = inner->check_usage(inner->userdata, &b);
        if (r < 0)
                return r;
        if (b->n > 0) {
                g->outcome = NODE_UNLOAD_REFUSED;
                g->blockers = *b;
                *b = (NodeBlockers) {};
        } else if (!node_stack_any_loaded(stack))
                g->outcome = NODE_UNLOAD_NOT_LOADED;
        else {
                g->outcome = NODE_UNLOAD_WOULD_REMOVE;
                r = node_stack_loaded_names(stack, &g->removed);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(g);
        return 0;
}

static int observe_unload(void *u, char *const *recorded, NodeUnloadResult **ret) {
        const NodeOps *inner = INNER(u);

        if (inner->unload_plan)
                return inner->unload_plan(inner->userdata, recorded, ret);
        return rehearse_unload(inner, ret);
}

static int would_load(char *const *modules, NodeLoadResult **ret) {
        /* NULL: the library's default, nvme and through it nvme_core. */
        static char *const stack_default[] = { (char *) "nvme_core", (char *) "nvme", NULL };
        _cleanup_(node_load_result_freep) NodeLoadResult *g = calloc(1, sizeof(*g));
        int r;

        if (!g)
                return -ENOMEM;
        g->would = true;
        if ((r = strv_copy(modules ?: stack_default, &g->loaded)) < 0)
                return r;
        *ret = TAKE_PTR(g);
        return 0;
}

static int observe_load_from(void *u, const char *tree, int root_fd, char *const *modules, unsigned timeout_sec,
                             NodeLoadResult **ret) {
        const NodeOps *inner = INNER(u);

        if (inner->load_plan)
                return inner->load_plan(inner->userdata, tree, root_fd, modules, ret);
        return would_load(modules, ret);
}

/* The one exception to "observe changes nothing": a node with no module of
 * the stack loaded at all. Observe never takes a driver away, so such a
 * node was left so by someone else: an enforce instance killed mid-swap
 * before the switch (its graceful stop restores first), or a person. The
 * quality bar's first rule, never leave a node without an NVMe driver,
 * outranks the rehearsal: loading the in-tree stack where none is loaded
 * cannot take anything from a namespace in use. The report says it was
 * done for real. */
static int observe_restore(void *u, char *const *modules, NodeLoadResult **ret) {
        const NodeOps *inner = INNER(u);
        _cleanup_(node_stack_freep) NodeStack *stack = NULL;
        int r;

        r = inner->read_stack(inner->userdata, &stack);
        if (r < 0)
                return r;
        if (!node_stack_any_loaded(stack))
                return inner->restore(inner->userdata, modules, ret);
        return would_load(modules, ret);
}

/* Fabrics: reading is reading (the capture and the connect are the work
 * of nvme-swapguard-fabrics.service, never asked for a capture in observe:
 * swap-fabrics.c). */
static int observe_fabrics_read(void *u, NodeFabrics **ret) {
        return INNER(u)->fabrics_read(INNER(u)->userdata, ret);
}

static int observe_nvme_pci_functions(void *u, unsigned *ret) {
        return INNER(u)->nvme_pci_functions(INNER(u)->userdata, ret);
}

int node_ops_observe_new(const NodeOps *inner, NodeOps **ret) {
        _cleanup_free_ NodeOps *ops = calloc(1, sizeof(*ops));
        Observe *o = calloc(1, sizeof(*o));

        if (!ops || !o) {
                free(o);
                return -ENOMEM;
        }
        o->inner = inner;
        *ops = (NodeOps) {
                .unload = observe_unload,
                .load_from = observe_load_from,
                .restore = observe_restore,
                .read_stack = observe_read_stack,
                .read_stack_hooks = observe_read_stack_hooks,
                .read_hooks = inner->read_hooks ? observe_read_hooks : NULL,
                .check_usage = observe_check_usage,
                .scan_namespaces = observe_scan_namespaces,
                .nvme_driverless = observe_nvme_driverless,
                .check_gds = inner->check_gds ? observe_check_gds : NULL,
                .fabrics_read = inner->fabrics_read ? observe_fabrics_read : NULL,
                .nvme_pci_functions = inner->nvme_pci_functions ? observe_nvme_pci_functions : NULL,
                /* pin_refresh, pin_release: NULL, never pinned (see the top). */
                /* unload_plan, load_plan: NULL, unload and load_from are rehearsals already. */
                .observe = true,
                .userdata = o,
        };
        *ret = TAKE_PTR(ops);
        return 0;
}

NodeOps *node_ops_observe_free(NodeOps *ops) {
        if (ops)
                free(ops->userdata);
        free(ops);
        return NULL;
}
