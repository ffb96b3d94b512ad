/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container/container-privilege.h"
#include "host/host-kernel.h"
#include "publish/log.h"
#include "swap/reload-block.h"
#include "swap/swap-actions.h"
#include "swap/swap-snapshot.h"
#include "swap/swap-context.h"
#include "swap/swap-fabrics.h"
#include "swap/swap-lifecycle.h"
#include "swap/swap-moment.h"
#include "swap/swap-pin.h"
#include "util/strv.h"

/* Which build the unload takes out, for the journal: after a swap (a new
 * driver container) it is an earlier container's build, not the in-tree one. */
static const char *stack_build(const NodeStack *stack) {
        NodeOrigin worst = NODE_ORIGIN_IN_TREE; /* the enum runs in-tree < out-of-tree < NVIDIA */

        for (size_t i = 0; stack && i < stack->n_modules; i++)
                if (stack->modules[i].origin > worst)
                        worst = stack->modules[i].origin;
        return worst == NODE_ORIGIN_NVIDIA        ? "NVIDIA build of the"
               : worst == NODE_ORIGIN_OUT_OF_TREE ? "out-of-tree build of the"
                                                   : "in-tree";
}

/* The same for the stack of this step (a re-check that is still refused:
 * only the usage was looked at, the node is as the step read it). */
static const char *loaded_build(const SwapActors *a) {
        const NodeStack *stack = NULL;

        if (swap_snapshot_stack(a->node.step, a->node.ops, a->node.loop, &stack) < 0)
                return stack_build(NULL);
        return stack_build(stack);
}

/* nvme_core without nvme while PCIe NVMe controllers have no driver: nvme
 * went behind our back (openibd, a person) in the 2 s before the stack's
 * health is judged. The drives need nvme after the swap as before it, or
 * the load would bring nvme_core alone and report a swap with no PCIe
 * driver. A fabrics-only node (no NVMe PCI function) is left as it is. */
static void record_driverless_nvme(const SwapActors *a, char *const *loaded) {
        const NodeOps *ops = a->node.ops;
        bool driverless = false;

        if (!strv_contains(loaded, "nvme_core") || strv_contains(a->swap->record.modules_before, "nvme") ||
            !ops->nvme_driverless || ops->nvme_driverless(ops->userdata, &driverless) < 0 || !driverless)
                return;
        (void) strv_extend(&a->swap->record.modules_before, "nvme");
}

/* The daemon changed the node: what the step read of it is past. */
static void node_changed(const SwapActors *a) {
        swap_snapshot_forget(a->node.step);
}

/* What we unload is what we must be able to put back: note it first, and
 * persist it, so a crash in the middle still knows. A record kept from an
 * unload that was cut short (SIGKILL after nvme_tcp went, found by
 * tests/faults, rows kill:unloading and kill:restoring) already names what
 * is gone now: add to it, never replace it, or the restore and the load
 * would leave those modules out. The same for the namespaces, whose
 * devices went with the modules. */
static const char *record_before_unload(const SwapActors *a, int *ret_fabrics) {
        const NodeOps *ops = a->node.ops;
        SwapMachine *s = a->swap;
        NodeStack *stack = NULL;
        NodeNamespaces *ns = NULL;
        char **names = NULL;
        const char *build;

        /* The action's own look, just before it acts (not the step's
         * snapshot: what goes is what is loaded at the last moment). */
        if (swap_snapshot_recheck(a->node.step, ops, &stack) >= 0 && node_stack_loaded_names(stack, &names) >= 0 &&
            names) {
                for (char **i = names; *i; i++)
                        if (!strv_contains(s->record.modules_before, *i))
                                (void) strv_extend(&s->record.modules_before, *i);
                record_driverless_nvme(a, names);
                strv_free(names);
        }
        build = stack_build(stack);
        node_stack_free(stack);
        if ((!s->record.namespaces_before || s->record.namespaces_before->n == 0) &&
            ops->scan_namespaces(ops->userdata, &ns) >= 0) {
                node_namespaces_free(s->record.namespaces_before);
                s->record.namespaces_before = ns;
        }
        /* the connections it drops, captured first */
        *ret_fabrics = swap_fabrics_before_unload(a->fabrics, s, a->follow, ops);
        return build;
}

static SwapEvent unload_outcome(const NodeUnloadResult *u, SwapOutcome *o) {
        switch (u->outcome) {
        case NODE_UNLOAD_REMOVED:
        case NODE_UNLOAD_NOT_LOADED:
                o->kind = SWAP_OUTCOME_UNLOADED;
                return SWAP_EVENT_UNLOAD_DONE;
        case NODE_UNLOAD_WOULD_REMOVE: /* observe (node-ops-observe.c) */
                o->kind = SWAP_OUTCOME_WOULD_UNLOAD;
                return SWAP_EVENT_UNLOAD_WOULD;
        case NODE_UNLOAD_REFUSED:
                o->kind = SWAP_OUTCOME_BLOCKED;
                return SWAP_EVENT_UNLOAD_REFUSED;
        case NODE_UNLOAD_FAILED_RESTORED:
                o->connect_after = "after the failed unload"; /* a transport may have gone */
                (void) swap_outcome_fail(o, u->failed_module,
                                         "Unloading %s failed (%s); the modules removed before it were put back.",
                                         u->failed_module ?: "the stack", strerror(u->failed_errno ?: EIO));
                return SWAP_EVENT_UNLOAD_FAILED;
        default:
                (void) swap_outcome_fail(o, u->failed_module,
                                         "Unloading %s failed (%s) and putting the stack back failed too.",
                                         u->failed_module ?: "the stack", strerror(u->failed_errno ?: EIO));
                return SWAP_EVENT_UNLOAD_FAILED_UNRESTORED;
        }
}

static SwapEvent unload_waits_for_capture(const SwapActors *a, SwapOutcome *o) {
        const NodeOps *ops = a->node.ops;
        NodeBlockers *b = NULL;

        /* In use: said as always, and no capture yet (it would be stale by the time the use ends). */
        if (ops->check_usage(ops->userdata, &b) >= 0 && b->n > 0) {
                o->kind = SWAP_OUTCOME_BLOCKED;
                o->blockers = b;
                return SWAP_EVENT_UNLOAD_REFUSED;
        }
        node_blockers_free(b);
        swap_fabrics_capture(a->fabrics, a->swap, a->follow, a->node.loop);
        o->kind = SWAP_OUTCOME_WAITING_CAPTURE;
        return SWAP_EVENT_UNLOAD_REFUSED;
}

/* 0 with *ret_fd (or -EBADF when there is no pidfd to confirm it with),
 * -ESRCH when the container's init is gone, -errno. */
static int open_container_root(const SwapActors *a, int *ret_fd) {
        int pidfd = driver_container_pidfd(&a->follow->container);

        *ret_fd = -EBADF;
        if (pidfd < 0)
                return 0;
        return container_root_open(a->follow->container.pid, pidfd, ret_fd);
}

/* The load that follows at the ready file, prepared before the node goes
 * driverless (NodeOps.prepare_load): the tree and modules action_load()
 * asks for. The load reads itself whatever is not prepared, or no longer
 * the same, and checks everything either way: a failure here costs only
 * the time it was meant to save. */
static void prepare_load(const SwapActors *a) {
        _cleanup_free_ char *tree = NULL, *release = NULL, *in_root = NULL;
        _cleanup_close_ int root_fd = -EBADF;
        const NodeOps *ops = a->node.ops;
        int r;

        if (!driver_container_followed(&a->follow->container) || a->follow->container.pid <= 0)
                return (void) ops->prepare_load(ops->userdata, NULL, -EBADF, NULL);
        r = host_kernel_release(&release);
        if (r >= 0)
                r = driver_container_module_tree(&a->follow->container, release, &tree);
        if (r >= 0)
                r = open_container_root(a, &root_fd);
        if (r >= 0 && root_fd >= 0 && asprintf(&in_root, "lib/modules/%s", release) < 0)
                r = -ENOMEM;
        if (r >= 0)
                r = ops->prepare_load(ops->userdata, root_fd >= 0 ? in_root : tree, root_fd,
                                      (char *const *) swap_modules_wanted(a->config, a->swap));
        if (r < 0)
                log_debug_errno(r, "Cannot prepare the load from %s before the unload, it reads the tree after: %m",
                                tree ?: "the driver container's tree");
}

static SwapEvent action_unload(const SwapActors *a, SwapOutcome *o) {
        const NodeOps *ops = a->node.ops;
        NodeUnloadResult *u = NULL;
        bool at_ready;
        int r;

        o->build = record_before_unload(a, &r);
        if (r < 0) {
                /* Connections nobody could bring back: not a swap. */
                (void) swap_outcome_fail(o, NULL,
                                         "Cannot record the node's NVMe over Fabrics connections before the unload "
                                         "(%s): not unloading the %s NVMe stack, it would drop them with nothing to "
                                         "reconnect them.",
                                         strerror(-r), o->build);
                return SWAP_EVENT_UNLOAD_FAILED;
        }
        if (r > 0) /* the capture is awaited: blocked on it, its answer re-checks */
                return unload_waits_for_capture(a, o);
        /* The load's host tree parsed before the node goes driverless when the
         * load follows at once (the ready file), else after the unload, while
         * the container compiles: never inside the driverless window, nor
         * between a container's start and the in-tree stack's removal. At the
         * ready file the container's tree is complete: its part of the load
         * is prepared then too. Both before the guard's usage re-check
         * inside unload(), never between it and the removal. */
        at_ready = swap_moment_unload_at(a->config, a->follow) == UNLOAD_AT_DRIVER_READY;
        if (at_ready && ops->prepare_load)
                prepare_load(a);
        swap_loop_save(a->node.loop, SWAP_SAVE_STEP); /* what goes is on disk before it goes */
        r = ops->unload(ops->userdata, a->swap->record.build_modules, &u);
        node_changed(a);
        if (!at_ready && ops->prepare_load && r >= 0 && u->outcome == NODE_UNLOAD_REMOVED)
                (void) ops->prepare_load(ops->userdata, NULL, -EBADF, NULL);
        /* the unload let go of the pin: take it again if still in use */
        swap_pin_refresh(a->pin, a->usage, a->swap, a->follow, a->node.loop);
        if (r < 0) {
                swap_fabrics_unload_over(a->fabrics, a->swap, a->follow, a->node.loop, false);
                o->kind = SWAP_OUTCOME_UNLOAD_ERROR;
                o->error = r;
                return SWAP_EVENT_UNLOAD_FAILED;
        }
        swap_fabrics_unload_over(a->fabrics, a->swap, a->follow, a->node.loop,
                                 u->outcome == NODE_UNLOAD_REMOVED || u->outcome == NODE_UNLOAD_FAILED_RESTORED ||
                                         u->outcome == NODE_UNLOAD_FAILED_UNRESTORED);
        o->unload = u;
        return unload_outcome(u, o);
}

static SwapEvent action_recheck(const SwapActors *a, SwapOutcome *o) {
        const NodeOps *ops = a->node.ops;
        NodeBlockers *b = NULL;
        int r;

        r = ops->check_usage(ops->userdata, &b);
        if (r < 0) {
                o->kind = SWAP_OUTCOME_USAGE_UNREAD;
                o->error = r;
                return SWAP_EVENT_UNLOAD_REFUSED;
        }
        if (b->n > 0) {
                swap_fabrics_capture_stale(a->fabrics);
                o->kind = SWAP_OUTCOME_BLOCKED;
                o->build = loaded_build(a);
                o->blockers = b;
                return SWAP_EVENT_UNLOAD_REFUSED;
        }
        node_blockers_free(b);
        log_info("The namespaces that blocked the unload are free now: unloading.");
        return action_unload(a, o);
}

static SwapEvent action_load(const SwapActors *a, SwapOutcome *o) {
        _cleanup_free_ char *tree = NULL, *release = NULL, *in_root = NULL;
        _cleanup_strv_free_ char **modules = NULL;
        _cleanup_close_ int root_fd = -EBADF;
        const NodeOps *ops = a->node.ops;
        const DriverContainer *c = &a->follow->container;
        NodeLoadResult *l = NULL;
        int r;

        if (!driver_container_followed(c) || c->pid <= 0) {
                (void) swap_outcome_fail(o, NULL, "The driver container is gone: nothing to load its build from.");
                return SWAP_EVENT_LOAD_FAILED;
        }
        r = host_kernel_release(&release);
        if (r < 0) {
                (void) swap_outcome_fail(o, NULL, "Cannot tell the running kernel's release: %s.", strerror(-r));
                return SWAP_EVENT_LOAD_FAILED;
        }
        r = driver_container_module_tree(c, release, &tree);
        if (r < 0) {
                (void) swap_outcome_fail(o, NULL, "Out of memory.");
                return SWAP_EVENT_LOAD_FAILED;
        }
        /* lifecycle: stack modules come only from the container's
         * tree: none there is not a swap, whatever the host's tree has.
         * Both checks say so themselves (the no-build entry and the
         * record's message) and rule the container's build out. */
        if (lifecycle_tree_lacks_build(a->swap, a->follow, a->config, tree) ||
            swap_fabrics_tree_lacks_transport(a->follow, a->swap, tree))
                return SWAP_EVENT_LOAD_NO_BUILD;
        if (lifecycle_modules_to_load(a->swap, a->follow, a->config, &modules) < 0) {
                (void) swap_outcome_fail(o, NULL, "Out of memory.");
                return SWAP_EVENT_LOAD_FAILED;
        }
        /* trust: the container's root as an fd, confirmed through its pidfd
         * (a reused pid is not the container); its tree is resolved inside
         * that root. Without a pidfd, the path (the library still keeps every
         * file inside the tree). */
        r = open_container_root(a, &root_fd);
        if (r == -ESRCH) {
                (void) swap_outcome_fail(o, NULL, "The driver container is gone: nothing to load its build from.");
                return SWAP_EVENT_LOAD_FAILED;
        }
        if (r < 0) {
                (void) swap_outcome_fail(o, NULL, "Cannot open the driver container's root /proc/%d/root: %s.",
                                         (int) c->pid, strerror(-r));
                return SWAP_EVENT_LOAD_FAILED;
        }
        if (root_fd >= 0 && asprintf(&in_root, "lib/modules/%s", release) < 0) {
                (void) swap_outcome_fail(o, NULL, "Out of memory.");
                return SWAP_EVENT_LOAD_FAILED;
        }
        swap_loop_save(a->node.loop, SWAP_SAVE_STEP);
        r = ops->load_from(ops->userdata, root_fd >= 0 ? in_root : tree, root_fd, modules,
                           a->config->load_timeout_sec, &l);
        node_changed(a);
        if (r < 0) {
                (void) swap_outcome_fail(o, NULL, "Cannot load the NVMe stack from %s: %s.", tree, strerror(-r));
                return SWAP_EVENT_LOAD_FAILED;
        }
        o->load = l;
        o->tree = TAKE_PTR(tree);
        if (l->failed_module && l->failed_errno == ENOPKG) {
                /* The library: a stack module the container's tree lacks. */
                o->kind = SWAP_OUTCOME_NO_BUILD;
                return SWAP_EVENT_LOAD_NO_BUILD;
        }
        if (l->failed_module && l->failed_errno == ETIMEDOUT) {
                /* Name the knob: a slow node wants a longer deadline, a hostile tree does not. */
                (void) swap_outcome_fail(o, l->failed_module,
                                         "Loading from %s ran past its deadline (LoadTimeoutSec=%u): %s.", o->tree,
                                         a->config->load_timeout_sec, l->failed_reason ?: "");
                return SWAP_EVENT_LOAD_FAILED;
        }
        if (l->failed_module) {
                (void) swap_outcome_fail(o, l->failed_module, "Loading %s from %s failed: %s (%s).", l->failed_module,
                                         o->tree, l->failed_reason ?: "", strerror(l->failed_errno ?: EIO));
                return SWAP_EVENT_LOAD_FAILED;
        }
        if (l->would) { /* observe (node-ops-observe.c) */
                o->kind = SWAP_OUTCOME_WOULD_LOAD;
                return SWAP_EVENT_LOAD_WOULD;
        }
        o->kind = SWAP_OUTCOME_LOADED;
        o->connect_after = "after the load"; /* through the container's transports */
        return SWAP_EVENT_LOAD_DONE;
}

/* Out-of-tree modules left by a load that never finished (a daemon killed
 * mid-load whose container then vanished, found by tests/faults, row
 * vanish:during-load) would have the in-tree nvme loaded against NVIDIA's
 * nvme_core: take them out first, through the guard (never forced, refused
 * if anything is in use). 0 when there was nothing or it is gone. */
static int remove_partial_replacement(const SwapActors *a, char **ret_why) {
        const NodeOps *ops = a->node.ops;
        NodeStack *stack = NULL;
        NodeUnloadResult *u = NULL;
        bool foreign = false;
        int r;

        r = swap_snapshot_recheck(a->node.step, ops, &stack);
        if (r < 0)
                return r;
        for (size_t i = 0; i < stack->n_modules; i++)
                if (stack->modules[i].origin == NODE_ORIGIN_OUT_OF_TREE ||
                    stack->modules[i].origin == NODE_ORIGIN_NVIDIA)
                        foreign = true;
        node_stack_free(stack);
        if (!foreign)
                return 0;
        log_info("Removing the half-loaded out-of-tree NVMe stack before restoring the in-tree one.");
        r = ops->unload(ops->userdata, a->swap->record.build_modules, &u);
        node_changed(a);
        swap_pin_refresh(a->pin, a->usage, a->swap, a->follow, a->node.loop);
        if (r < 0)
                return r;
        r = u->outcome == NODE_UNLOAD_REMOVED || u->outcome == NODE_UNLOAD_NOT_LOADED ||
                            u->outcome == NODE_UNLOAD_WOULD_REMOVE ? 0 : -EBUSY;
        /* In use: say by what (a mount that came during the load's rollback),
         * not only "busy"; the half-loaded build stays and drives it. */
        if (u->outcome == NODE_UNLOAD_REFUSED && ret_why)
                *ret_why = node_blockers_join(&u->blockers);
        node_unload_result_free(u);
        return r;
}

static SwapEvent action_restore(const SwapActors *a, SwapOutcome *o) {
        _cleanup_free_ char *why = NULL;
        const NodeOps *ops = a->node.ops;
        NodeLoadResult *l = NULL;
        SwapEvent ev = SWAP_EVENT_RESTORE_DONE;
        int r;

        /* The restoring state is on disk before anything changes. */
        swap_loop_save(a->node.loop, SWAP_SAVE_STEP);
        /* Let the in-tree stack come back whatever way the library loads it. */
        r = reload_block_remove();
        if (r < 0)
                log_warning_errno(r, "Cannot remove the reload block " RELOAD_BLOCK_PATH ", ignoring: %m");
        r = remove_partial_replacement(a, &why);
        if (r < 0) {
                (void) swap_outcome_fail(o, NULL,
                                         "Cannot remove the half-loaded out-of-tree NVMe stack before restoring the "
                                         "in-tree one: %s%s.",
                                         why && *why ? why : strerror(-r),
                                         why && *why ? "; it stays loaded and keeps driving the namespaces" : "");
                return SWAP_EVENT_RESTORE_FAILED;
        }
        r = ops->restore(ops->userdata, swap_modules_wanted(a->config, a->swap), &l);
        node_changed(a);
        if (r < 0) {
                (void) swap_outcome_fail(o, NULL,
                                         "Cannot restore the in-tree NVMe stack: %s. The node has no NVMe driver.",
                                         strerror(-r));
                return SWAP_EVENT_RESTORE_FAILED;
        }
        if (l->failed_module) {
                (void) swap_outcome_fail(o, l->failed_module,
                                         "Restoring the in-tree %s failed: %s (%s). The node may have no NVMe driver.",
                                         l->failed_module, l->failed_reason ?: "", strerror(l->failed_errno ?: EIO));
                ev = SWAP_EVENT_RESTORE_FAILED;
        }
        o->kind = SWAP_OUTCOME_RESTORED;
        o->load = l;
        if (!l->would && ev == SWAP_EVENT_RESTORE_DONE)
                o->connect_after = "after the restore"; /* through the in-tree transports */
        return ev;
}

SwapEvent swap_actions_run(const SwapActors *a, SwapAction action, SwapOutcome *ret) {
        *ret = (SwapOutcome) {};
        switch (action) {
        case SWAP_ACTION_UNLOAD:
                return action_unload(a, ret);
        case SWAP_ACTION_RECHECK_USAGE:
                return action_recheck(a, ret);
        case SWAP_ACTION_LOAD:
                return action_load(a, ret);
        case SWAP_ACTION_RESTORE:
                return action_restore(a, ret);
        default:
                return _SWAP_EVENT_INVALID;
        }
}
