/* SPDX-License-Identifier: Apache-2.0 */

/* GuardOps with the guard library: the one file of the daemon that calls
 * kmod-helper/lib. It copies the library's results into the daemon's small
 * types so nothing else depends on the library's structures. */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvme/nvme-unbound.h"
#include "actions/nvfs-check.h"
#include "actions/stack-load.h"
#include "actions/stack-unload.h"
#include "guard/guard-ops-pin.h"
#include "guard/guard-ops.h"
#include "modules/module-stack.h"
#include "nvme/nvme-block-devices.h"
#include "util/strv.h"
#include "usage/usage-check.h"
#include "util/macro.h"


static int blocker_add(GuardBlockers *b, const char *device, const char *kind, const char *where, pid_t pid,
                       char *description /* taken */) {
        GuardBlocker *n = realloc(b->items, (b->n + 1) * sizeof(*n));

        if (!n) {
                free(description);
                return -ENOMEM;
        }
        b->items = n;
        n[b->n] = (GuardBlocker) {
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

static int blockers_from_usage(const UsageReport *u, GuardBlockers *b) {
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
        }
        return 0;
}

static int real_unload(void *userdata, GuardUnloadResult **ret) {
        _cleanup_(unload_result_freep) UnloadResult *u = NULL;
        _cleanup_(guard_unload_result_freep) GuardUnloadResult *g = calloc(1, sizeof(*g));
        _cleanup_(usage_report_freep) UsageReport *in_use = NULL;
        UnloadOptions opts = {};
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
                g->outcome = GUARD_UNLOAD_REFUSED;
                r = blockers_from_usage(in_use, &g->blockers);
                if (r < 0)
                        return r;
                *ret = TAKE_PTR(g);
                return 0;
        }
        /* Never held across our own guarded unload: its descriptors would
         * make every removal fail (the caller refreshes it afterwards). */
        guard_pin_release_real(userdata);
        r = stack_unload(&opts, &u);
        if (r < 0)
                return r;
        switch (u->outcome) {
        case UNLOAD_OUTCOME_REMOVED: g->outcome = GUARD_UNLOAD_REMOVED; break;
        case UNLOAD_OUTCOME_NOT_LOADED: g->outcome = GUARD_UNLOAD_NOT_LOADED; break;
        case UNLOAD_OUTCOME_FAILED_RESTORED: g->outcome = GUARD_UNLOAD_FAILED_RESTORED; break;
        case UNLOAD_OUTCOME_FAILED_UNRESTORED: g->outcome = GUARD_UNLOAD_FAILED_UNRESTORED; break;
        default: g->outcome = GUARD_UNLOAD_REFUSED; break; /* in use, blocked (dry run is never asked) */
        }
        r = strv_copy(u->removed, &g->removed);
        if (r < 0)
                return r;
        if (g->outcome == GUARD_UNLOAD_REFUSED) {
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

static int load(const char *tree, int root_fd, char *const *modules, unsigned timeout_sec, GuardLoadResult **ret) {
        _cleanup_(load_result_freep) LoadResult *l = NULL;
        _cleanup_(guard_load_result_freep) GuardLoadResult *g = calloc(1, sizeof(*g));
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
        *ret = TAKE_PTR(g);
        return 0;
}

static int real_load_from(void *userdata, const char *tree, int root_fd, char *const *modules,
                          unsigned timeout_sec, GuardLoadResult **ret) {
        return load(tree, root_fd, modules, timeout_sec, ret);
}

/* The host's own tree, with the library's deadline: LoadTimeoutSec= bounds
 * what comes from a container, and cutting a restore short would leave the
 * node without a driver. */
static int real_restore(void *userdata, char *const *modules, GuardLoadResult **ret) {
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

static GuardOrigin origin_from_library(ModuleOrigin o) {
        switch (o) {
        case MODULE_ORIGIN_IN_TREE: return GUARD_ORIGIN_IN_TREE;
        case MODULE_ORIGIN_OUT_OF_TREE: return GUARD_ORIGIN_OUT_OF_TREE;
        case MODULE_ORIGIN_NVIDIA: return GUARD_ORIGIN_NVIDIA;
        default: return GUARD_ORIGIN_ABSENT;
        }
}

static int real_read_stack(void *userdata, GuardStack **ret) {
        _cleanup_(module_stack_freep) ModuleStack *s = NULL;
        _cleanup_(guard_stack_freep) GuardStack *g = calloc(1, sizeof(*g));
        int r;

        if (!g)
                return -ENOMEM;
        r = module_stack_read(&s);
        if (r < 0)
                return r;
        g->modules = calloc(s->n_modules ?: 1, sizeof(GuardModule));
        if (!g->modules)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_modules; i++) {
                const ModuleInfo *m = &s->modules[i];

                g->modules[i].name = strdup(m->name);
                if (!g->modules[i].name)
                        return -ENOMEM;
                g->n_modules++;
                g->modules[i].origin = m->loaded ? origin_from_library(m->origin) : GUARD_ORIGIN_ABSENT;
                g->modules[i].gds_hooks = m->has_gds_hooks;
                if (m->gds_generations && !(g->modules[i].gds_generations = strdup(m->gds_generations)))
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(g);
        return 0;
}

static int real_check_usage(void *userdata, GuardBlockers **ret) {
        _cleanup_(usage_report_freep) UsageReport *u = NULL;
        _cleanup_(guard_blockers_freep) GuardBlockers *b = calloc(1, sizeof(*b));
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

static int real_scan_namespaces(void *userdata, GuardNamespaces **ret) {
        _cleanup_(nvme_block_devices_freep) NvmeBlockDevices *d = NULL;
        _cleanup_(guard_namespaces_freep) GuardNamespaces *g = calloc(1, sizeof(*g));
        int r;

        if (!g)
                return -ENOMEM;
        r = nvme_block_devices_scan(&d);
        if (r < 0)
                return r;
        g->items = calloc(d->n_devices ?: 1, sizeof(GuardNamespace));
        if (!g->items)
                return -ENOMEM;
        for (size_t i = 0; i < d->n_devices; i++) {
                const NvmeBlockDevice *x = &d->devices[i];
                GuardNamespace *n = &g->items[g->n];

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

static GuardGdsMatch gds_match_from_library(GdsMatch m) {
        switch (m) {
        case GDS_MATCH_SAME: return GUARD_GDS_SAME;
        case GDS_MATCH_DIFFERENT: return GUARD_GDS_DIFFERENT;
        case GDS_MATCH_NO_HOOKS: return GUARD_GDS_NO_HOOKS;
        default: return GUARD_GDS_UNKNOWN;
        }
}

static int real_check_gds(void *userdata, char *const *trees, GuardGds **ret) {
        _cleanup_(nvfs_check_freep) NvfsCheck *c = NULL;
        _cleanup_(guard_gds_freep) GuardGds *g = calloc(1, sizeof(*g));
        int r;

        if (!g)
                return -ENOMEM;
        r = nvfs_check(trees, &c);
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

const GuardOps guard_ops_real = {
        .unload = real_unload,
        .load_from = real_load_from,
        .nvme_driverless = real_nvme_driverless,
        .restore = real_restore,
        .read_stack = real_read_stack,
        .check_usage = real_check_usage,
        .scan_namespaces = real_scan_namespaces,
        .pin_refresh = guard_pin_refresh_real,
        .pin_release = guard_pin_release_real,
        .check_gds = real_check_gds,
};
