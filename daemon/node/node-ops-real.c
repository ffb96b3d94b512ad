/* SPDX-License-Identifier: Apache-2.0 */

/* NodeOps with the guard library: the one file of the daemon that calls
 * kmod-helper/lib (with its parts: node-ops-real-fabrics.c, node-ops-pin.c,
 * and host-index.c, the host's module index its stack reads use). It copies
 * the library's results into the daemon's small types so nothing else
 * depends on the library's structures. */

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nvme/nvme-unbound.h"
#include "actions/host-tree-warm.h"
#include "actions/load-prepare.h"
#include "actions/module-tree.h"
#include "actions/nvfs-check.h"
#include "actions/stack-load.h"
#include "actions/stack-unload.h"
#include "node/host-index.h"
#include "node/node-ops-pin.h"
#include "node/node-ops-real-fabrics.h"
#include "node/node-ops.h"
#include "host/host-root.h"
#include "modules/kallsyms-hooks.h"
#include "modules/module-stack.h"
#include "nvme/nvme-block-devices.h"
#include "util/strv.h"
#include "usage/usage-check.h"
#include "util/macro.h"


static int blocker_add(NodeBlockers *b, const char *device, const char *kind, const char *where, pid_t pid,
                       char *description /* taken */) {
        NodeBlocker *n = realloc(b->items, (b->n + 1) * sizeof(*n));

        if (!n) {
                free(description);
                return -ENOMEM;
        }
        b->items = n;
        n[b->n] = (NodeBlocker) {
                .device = device ? strdup(device) : NULL,
                .kind = strdup(kind),
                .where = where ? strdup(where) : NULL,
                .pid = pid,
                .description = description,
        };
        b->n++;
        return 0;
}

static const char *usage_kind_short(UsageKind k) {
        switch (k) {
        case USAGE_MOUNTED: return "mounted";
        case USAGE_SWAP: return "swap";
        case USAGE_HOLDER: return "holder";
        case USAGE_OPEN_BY_PROCESS: return "open";
        case USAGE_KERNEL_CLAIM: return "kernel-claim";
        case USAGE_UNCHECKED: return "unchecked";
        default: return "unknown";
        }
}

static int blockers_from_usage(const UsageReport *u, NodeBlockers *b) {
        for (size_t i = 0; u && i < u->n_usages; i++) {
                const Usage *x = &u->usages[i];
                char *d = NULL;
                int r;

                r = usage_describe(x, &d);
                if (r < 0)
                        return r;
                r = blocker_add(b, x->device, usage_kind_short(x->kind), x->where, x->pid, d);
                if (r < 0)
                        return r;
                b->items[b->n - 1].other_namespace = x->mount_ns != NULL;
        }
        return 0;
}

static int real_unload(void *userdata, char *const *recorded, NodeUnloadResult **ret) {
        _cleanup_(unload_result_freep) UnloadResult *u = NULL;
        _cleanup_(node_unload_result_freep) NodeUnloadResult *g = calloc(1, sizeof(*g));
        _cleanup_(usage_report_freep) UsageReport *in_use = NULL;
        UnloadOptions opts = { .recorded = recorded };
        int r;

        if (!g)
                return -ENOMEM;
        /* In use: refuse with the pin still held. Letting go of it first
         * left nvme unpinned under a mounted multipath head for as long as
         * stack_unload() took to find the use (refcnt 0, seen by
         * tests/daemon/vm/daemon-pin.sh at a driver container's start, the
         * moment its openibd may run `modprobe -r nvme`). The pin's own
         * descriptors are controllers, not namespaces: the check does not
         * count them. */
        r = usage_check(&in_use);
        if (r < 0)
                return r;
        if (usage_report_in_use(in_use)) {
                g->outcome = NODE_UNLOAD_REFUSED;
                r = blockers_from_usage(in_use, &g->blockers);
                if (r < 0)
                        return r;
                *ret = TAKE_PTR(g);
                return 0;
        }
        /* Never held across our own guarded unload: its descriptors would
         * make every removal fail (the caller refreshes it afterwards). */
        node_pin_release_real(userdata);
        r = stack_unload_checked(&opts, TAKE_PTR(in_use), &u);
        if (r < 0)
                return r;
        switch (u->outcome) {
        case UNLOAD_OUTCOME_REMOVED: g->outcome = NODE_UNLOAD_REMOVED; break;
        case UNLOAD_OUTCOME_NOT_LOADED: g->outcome = NODE_UNLOAD_NOT_LOADED; break;
        case UNLOAD_OUTCOME_FAILED_RESTORED: g->outcome = NODE_UNLOAD_FAILED_RESTORED; break;
        case UNLOAD_OUTCOME_FAILED_UNRESTORED: g->outcome = NODE_UNLOAD_FAILED_UNRESTORED; break;
        default: g->outcome = NODE_UNLOAD_REFUSED; break; /* in use, blocked (dry run is never asked) */
        }
        r = strv_copy(u->removed, &g->removed);
        if (r >= 0)
                r = strv_copy(u->kept, &g->kept);
        if (r < 0)
                return r;
        if (g->outcome == NODE_UNLOAD_REFUSED) {
                r = blockers_from_usage(u->usage, &g->blockers);
                for (char **i = u->plan_blockers; r >= 0 && i && *i; i++)
                        r = blocker_add(&g->blockers, NULL, "module", NULL, 0, strdup(*i));
                if (r < 0)
                        return r;
        }
        if (u->failed_module && !(g->failed_module = strdup(u->failed_module)))
                return -ENOMEM;
        g->failed_errno = u->failed_errno;
        *ret = TAKE_PTR(g);
        return 0;
}

static int load(const char *tree, int root_fd, char *const *modules, unsigned timeout_sec, NodeLoadResult **ret) {
        _cleanup_(load_result_freep) LoadResult *l = NULL;
        _cleanup_(node_load_result_freep) NodeLoadResult *g = calloc(1, sizeof(*g));
        /* A half-loaded NVIDIA stack is removed again before the restore that
         * follows: otherwise the in-tree nvme loads against NVIDIA's nvme_core
         * and the node ends with a mixed stack (found by tests/faults, row
         * daemon:load:nvme:EPERM:free). A restore keeps what it loaded. */
        LoadOptions opts = { .module_tree = tree, .in_root = root_fd >= 0, .root_fd = root_fd,
                             .timeout_sec = timeout_sec, .modules = (char **) modules,
                             .rollback_on_failure = tree != NULL };
        int r;

        if (!g)
                return -ENOMEM;
        r = stack_load(&opts, &l);
        if (r < 0)
                return r;
        for (size_t i = 0; i < l->n_modules; i++) {
                const LoadedModule *x = &l->modules[i];
                char ***where = x->already_loaded ? &g->already : x->from_host ? &g->from_host : &g->from_tree;

                if (strv_push(&g->loaded, strdup(x->name)) < 0 || strv_push(where, strdup(x->name)) < 0)
                        return -ENOMEM;
        }
        if (l->failed_module) {
                g->failed_module = strdup(l->failed_module);
                g->failed_reason = strdup(l->failed_reason ?: "");
                if (!g->failed_module || !g->failed_reason)
                        return -ENOMEM;
        }
        g->failed_errno = l->failed_errno;
        if ((l->replaced && strv_copy(l->replaced, &g->replaced) < 0) || (l->kept && strv_copy(l->kept, &g->kept) < 0))
                return -ENOMEM;
        *ret = TAKE_PTR(g);
        return 0;
}

static int real_load_from(void *userdata, const char *tree, int root_fd, char *const *modules,
                          unsigned timeout_sec, NodeLoadResult **ret) {
        return load(tree, root_fd, modules, timeout_sec, ret);
}

static int real_prepare_load(void *userdata, const char *tree, int root_fd, char *const *modules) {
        int r = host_tree_warm(); /* a host tree that cannot be read now is read by the load */

        if (!tree)
                return r;
        return load_prepare(&(LoadOptions) { .module_tree = tree, .in_root = root_fd >= 0, .root_fd = root_fd,
                                             .modules = (char **) modules });
}

/* The host's own tree, with the library's deadline: LoadTimeoutSec= bounds
 * what comes from a container, and cutting a restore short would leave the
 * node without a driver. */
static int real_restore(void *userdata, char *const *modules, NodeLoadResult **ret) {
        return load(NULL, -1, modules, 0, ret);
}

static int real_nvme_driverless(void *userdata, bool *ret) {
        unsigned n;
        int r = nvme_controllers_unbound(&n);

        if (r < 0)
                return r;
        *ret = n > 0;
        return 0;
}

static NodeOrigin origin_from_library(ModuleOrigin o) {
        switch (o) {
        case MODULE_ORIGIN_IN_TREE: return NODE_ORIGIN_IN_TREE;
        case MODULE_ORIGIN_OUT_OF_TREE: return NODE_ORIGIN_OUT_OF_TREE;
        case MODULE_ORIGIN_NVIDIA: return NODE_ORIGIN_NVIDIA;
        default: return NODE_ORIGIN_ABSENT;
        }
}

static int member_needs(const ModuleTree *t, const char *name, char ***ret) {
        const ModuleTreeEntry *e = module_tree_find(t, name);
        _cleanup_strv_free_ char **l = NULL;

        *ret = NULL;
        if (!e)
                return 0;
        l = strv_new_empty();
        if (!l)
                return -ENOMEM;
        STRV_FOREACH(d, e->depends)
                if (nvme_stack_module(*d) && strv_extend(&l, *d) < 0)
                        return -ENOMEM;
        *ret = TAKE_PTR(l);
        return 0;
}

static int node_module_from(const ModuleStack *s, const ModuleInfo *m, const ModuleTree *index, NodeModule *g) {
        g->name = strdup(m->name);
        g->build = strdup(module_build_to_string(module_stack_build_of(s, m)));
        if (!g->name || !g->build)
                return -ENOMEM;
        g->origin = m->loaded ? origin_from_library(m->origin) : NODE_ORIGIN_ABSENT;
        g->shared = m->role == MODULE_ROLE_SHARED;
        g->hooks_possible = m->loaded && m->may_have_gds_hooks;
        g->gds_hooks = m->has_gds_hooks;
        if (m->gds_generations && !(g->gds_generations = strdup(m->gds_generations)))
                return -ENOMEM;
        if (m->srcversion && !(g->srcversion = strdup(m->srcversion)))
                return -ENOMEM;
        return index && m->role == MODULE_ROLE_MEMBER ? member_needs(index, m->name, &g->needs) : 0;
}

static int read_stack(ModuleStackRead flags, NodeStack **ret) {
        _cleanup_(module_stack_freep) ModuleStack *s = NULL;
        _cleanup_(node_stack_freep) NodeStack *g = calloc(1, sizeof(*g));
        const ModuleTree *index;
        int r;

        if (!g)
                return -ENOMEM;
        r = module_stack_read_with(flags, &s);
        if (r < 0)
                return r;
        g->modules = calloc(s->n_modules ?: 1, sizeof(NodeModule));
        if (!g->modules)
                return -ENOMEM;
        index = host_index();
        for (size_t i = 0; i < s->n_modules; i++) {
                g->n_modules++;
                r = node_module_from(s, &s->modules[i], index, &g->modules[i]);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(g);
        return 0;
}

static int real_read_stack(void *userdata, NodeStack **ret) {
        return read_stack(MODULE_STACK_READ_DECIDE, ret);
}

static int real_read_stack_hooks(void *userdata, NodeStack **ret) {
        return read_stack(MODULE_STACK_READ_HOOKS, ret);
}

/* What module_stack_read_with(MODULE_STACK_READ_HOOKS) adds to a stack it
 * read without them: kallsyms read once, only when some loaded module could
 * carry the hooks, and the module that does is NVIDIA's build
 * (module_origin_classify(): the hooks are the stronger signal). */
static int real_read_hooks(void *userdata, NodeStack *stack) {
        _cleanup_strv_free_ char **hooks = NULL;
        bool possible = false;
        int r;

        for (size_t i = 0; i < stack->n_modules; i++)
                possible = possible || stack->modules[i].hooks_possible;
        if (!possible)
                return 0;
        r = kallsyms_gds_hooks_read(&hooks);
        if (r < 0)
                return r;
        for (size_t i = 0; i < stack->n_modules; i++) {
                NodeModule *x = &stack->modules[i];
                char *g = NULL;

                if (!x->hooks_possible)
                        continue;
                r = gds_hooks_generations_of(hooks, x->name, &g);
                if (r < 0)
                        return r;
                free(x->gds_generations);
                x->gds_generations = g;
                x->gds_hooks = g != NULL;
                if (x->gds_hooks && x->origin != NODE_ORIGIN_NVIDIA) {
                        x->origin = NODE_ORIGIN_NVIDIA;
                        if (!x->shared && (!x->build || strcmp(x->build, "in-tree") == 0)) {
                                free(x->build);
                                x->build = strdup(module_build_to_string(MODULE_BUILD_CONTAINER));
                                if (!x->build)
                                        return -ENOMEM;
                        }
                }
        }
        return 0;
}

static int real_check_usage(void *userdata, NodeBlockers **ret) {
        _cleanup_(usage_report_freep) UsageReport *u = NULL;
        _cleanup_(node_blockers_freep) NodeBlockers *b = calloc(1, sizeof(*b));
        int r;

        if (!b)
                return -ENOMEM;
        r = usage_check(&u);
        if (r < 0)
                return r;
        r = blockers_from_usage(u, b);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(b);
        return 0;
}

static int real_scan_namespaces(void *userdata, NodeNamespaces **ret) {
        _cleanup_(nvme_block_devices_freep) NvmeBlockDevices *d = NULL;
        _cleanup_(node_namespaces_freep) NodeNamespaces *g = calloc(1, sizeof(*g));
        int r;

        if (!g)
                return -ENOMEM;
        r = nvme_block_devices_scan(&d);
        if (r < 0)
                return r;
        g->items = calloc(d->n_devices ?: 1, sizeof(NodeNamespace));
        if (!g->items)
                return -ENOMEM;
        for (size_t i = 0; i < d->n_devices; i++) {
                const NvmeBlockDevice *x = &d->devices[i];
                NodeNamespace *n = &g->items[g->n];

                if (x->is_partition)
                        continue;
                n->name = strdup(x->name);
                n->serial = strdup(x->serial ?: "");
                g->n++;
                if (!n->name || !n->serial)
                        return -ENOMEM;
                n->nsid = x->nsid;
        }
        *ret = TAKE_PTR(g);
        return 0;
}

static NodeGdsMatch gds_match_from_library(GdsMatch m) {
        switch (m) {
        case GDS_MATCH_SAME: return NODE_GDS_SAME;
        case GDS_MATCH_DIFFERENT: return NODE_GDS_DIFFERENT;
        case GDS_MATCH_NO_HOOKS: return NODE_GDS_NO_HOOKS;
        default: return NODE_GDS_UNKNOWN;
        }
}

static int real_check_gds(void *userdata, char *const *trees, const NodeModule *nvme, NodeGds **ret) {
        _cleanup_(nvfs_check_freep) NvfsCheck *c = NULL;
        _cleanup_(node_gds_freep) NodeGds *g = calloc(1, sizeof(*g));
        int r;

        if (!g)
                return -ENOMEM;
        r = nvme ? nvfs_check_exported(trees, nvme->gds_generations, &c) : nvfs_check(trees, &c);
        if (r < 0)
                return r;
        g->nvfs_loaded = c->loaded;
        g->match = gds_match_from_library(c->match);
        g->description = nvfs_check_describe(c);
        if (!g->description || (c->exported && !(g->exported = strdup(c->exported))) ||
            (c->wanted && c->wanted[0] && !(g->wanted = strdup(c->wanted[0]))))
                return -ENOMEM;
        *ret = TAKE_PTR(g);
        return 0;
}

/* Observe's unload: the library's own dry run, the same stack
 * read, removal plan and usage check as the unload, and nothing more. */
static int real_unload_plan(void *userdata, char *const *recorded, NodeUnloadResult **ret) {
        _cleanup_(unload_result_freep) UnloadResult *u = NULL;
        _cleanup_(node_unload_result_freep) NodeUnloadResult *g = calloc(1, sizeof(*g));
        int r;

        if (!g)
                return -ENOMEM;
        r = stack_unload(&(UnloadOptions) { .dry_run = true, .recorded = recorded }, &u);
        if (r < 0)
                return r;
        switch (u->outcome) {
        case UNLOAD_OUTCOME_WOULD_REMOVE: g->outcome = NODE_UNLOAD_WOULD_REMOVE; break;
        case UNLOAD_OUTCOME_NOT_LOADED: g->outcome = NODE_UNLOAD_NOT_LOADED; break;
        default: g->outcome = NODE_UNLOAD_REFUSED; break; /* a dry run removes nothing */
        }
        if (g->outcome == NODE_UNLOAD_WOULD_REMOVE && (r = strv_copy(u->planned, &g->removed)) < 0)
                return r;
        if (g->outcome == NODE_UNLOAD_REFUSED) {
                r = blockers_from_usage(u->usage, &g->blockers);
                for (char **i = u->plan_blockers; r >= 0 && i && *i; i++)
                        r = blocker_add(&g->blockers, NULL, "module", NULL, 0, strdup(*i));
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(g);
        return 0;
}

/* Observe's load: open the tree as the load would (inside the container's
 * root) and find each module in it; nothing is read into the kernel. A
 * module the tree lacks is ENOPKG, as the load reports it. */
static int real_load_plan(void *userdata, const char *tree, int root_fd, char *const *modules,
                          NodeLoadResult **ret) {
        static char *const stack_default[] = { (char *) "nvme_core", (char *) "nvme", NULL };
        _cleanup_(module_tree_freep) ModuleTree *t = NULL;
        _cleanup_(node_load_result_freep) NodeLoadResult *g = calloc(1, sizeof(*g));
        _cleanup_free_ char *path = NULL;
        int r;

        if (!g)
                return -ENOMEM;
        g->would = true;
        if (root_fd >= 0)
                r = module_tree_open_at_confined(root_fd, tree, tree, &t, NULL);
        else
                r = host_path(tree, &path) < 0 ? -ENOMEM : module_tree_open_confined(path, &t, NULL);
        if (r < 0)
                return r;
        for (char *const *m = modules ?: stack_default; *m; m++) {
                if (!module_tree_find(t, *m)) {
                        g->failed_module = strdup(*m);
                        g->failed_reason = strdup("not in the container's tree");
                        g->failed_errno = ENOPKG;
                        if (!g->failed_module || !g->failed_reason)
                                return -ENOMEM;
                        break;
                }
                if (strv_extend(&g->loaded, *m) < 0 || strv_extend(&g->from_tree, *m) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(g);
        return 0;
}

const NodeOps node_ops_real = {
        .unload = real_unload,
        .load_from = real_load_from,
        .prepare_load = real_prepare_load,
        .nvme_driverless = real_nvme_driverless,
        .restore = real_restore,
        .read_stack = real_read_stack,
        .read_stack_hooks = real_read_stack_hooks,
        .read_hooks = real_read_hooks,
        .check_usage = real_check_usage,
        .scan_namespaces = real_scan_namespaces,
        .pin_refresh = node_pin_refresh_real,
        .pin_release = node_pin_release_real,
        .check_gds = real_check_gds,
        .unload_plan = real_unload_plan,
        .load_plan = real_load_plan,
        .fabrics_read = node_fabrics_read_real,
        .nvme_pci_functions = node_nvme_pci_functions_real,
};
