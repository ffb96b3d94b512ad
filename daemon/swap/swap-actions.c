/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container/container-privilege.h"
#include "host/host-kernel.h"
#include "publish/log.h"
#include "swap/observe-report.h"
#include "swap/reload-block.h"
#include "swap/swap-actions.h"
#include "swap/swap-snapshot.h"
#include "swap/swap-context.h"
#include "swap/swap-fabrics.h"
#include "swap/swap-lifecycle.h"
#include "swap/swap-metrics.h"
#include "swap/swap-moment.h"
#include "swap/swap-note.h"
#include "swap/swap-pin.h"
#include "swap/swap-record.h"
#include "swap/swap-report.h"
#include "util/strv.h"
#include "watch/fabrics-watch.h"

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
static const char *loaded_build(Manager *m) {
        const NodeStack *stack = NULL;

        if (swap_snapshot_stack(&m->step, m->ops, &m->loop, &stack) < 0)
                return stack_build(NULL);
        return stack_build(stack);
}

/* nvme_core without nvme while PCIe NVMe controllers have no driver: nvme
 * went behind our back (openibd, a person) in the 2 s before the stack's
 * health is judged. The drives need nvme after the swap as before it, or
 * the load would bring nvme_core alone and report a swap with no PCIe
 * driver. A fabrics-only node (no NVMe PCI function) is left as it is. */
static void record_driverless_nvme(Manager *m, char *const *loaded) {
        bool driverless = false;

        if (!strv_contains(loaded, "nvme_core") || strv_contains(m->swap.record.modules_before, "nvme") ||
            !m->ops->nvme_driverless || m->ops->nvme_driverless(m->ops->userdata, &driverless) < 0 || !driverless)
                return;
        (void) strv_extend(&m->swap.record.modules_before, "nvme");
}

/* An action failed: the why noted in the record, then told. */
static void note_and_tell_failure(Manager *m, const char *module, const char *fmt, ...) _printf_(3, 4);
static void note_and_tell_failure(Manager *m, const char *module, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        swap_note_failurev(&m->swap, fmt, ap);
        va_end(ap);
        swap_report_failure(&m->swap, &m->follow, module);
}

/* A refused unload: the blockers counted and noted (their processes, for a
 * re-check when one exits), and told when they are not those said last. */
static void note_and_tell_blockers(Manager *m, const char *build, const NodeBlockers *b) {
        swap_metrics_blockers(&m->publish, b);
        if (swap_note_blockers(&m->swap, m->config->mode, b))
                swap_report_blockers(&m->swap, &m->follow, m->config->mode, build, b);
}

/* The daemon changed the node: what the step read of it is past. */
static void node_changed(Manager *m) {
        swap_snapshot_forget(&m->step);
}

/* What we unload is what we must be able to put back: note it first, and
 * persist it, so a crash in the middle still knows. A record kept from an
 * unload that was cut short (SIGKILL after nvme_tcp went, found by
 * tests/faults, rows kill:unloading and kill:restoring) already names what
 * is gone now: add to it, never replace it, or the restore and the load
 * would leave those modules out. The same for the namespaces, whose
 * devices went with the modules. */
static const char *record_before_unload(Manager *m, int *ret_fabrics) {
        NodeStack *stack = NULL;
        NodeNamespaces *ns = NULL;
        char **names = NULL;
        const char *build;

        /* The action's own look, just before it acts (not the step's
         * snapshot: what goes is what is loaded at the last moment). */
        if (swap_snapshot_recheck(&m->step, m->ops, &stack) >= 0 && node_stack_loaded_names(stack, &names) >= 0 &&
            names) {
                for (char **i = names; *i; i++)
                        if (!strv_contains(m->swap.record.modules_before, *i))
                                (void) strv_extend(&m->swap.record.modules_before, *i);
                record_driverless_nvme(m, names);
                strv_free(names);
        }
        build = stack_build(stack);
        node_stack_free(stack);
        if ((!m->swap.record.namespaces_before || m->swap.record.namespaces_before->n == 0) &&
            m->ops->scan_namespaces(m->ops->userdata, &ns) >= 0) {
                node_namespaces_free(m->swap.record.namespaces_before);
                m->swap.record.namespaces_before = ns;
        }
        /* the connections it drops, captured first */
        *ret_fabrics = swap_fabrics_before_unload(&m->fabrics, &m->swap, &m->follow, m->ops);
        return build;
}

static SwapEvent unload_outcome(Manager *m, const NodeUnloadResult *u, const char *build) {
        switch (u->outcome) {
        case NODE_UNLOAD_REMOVED:
        case NODE_UNLOAD_NOT_LOADED:
                free(m->swap.last_blockers);
                m->swap.last_blockers = NULL;
                swap_report_unloaded(&m->swap, &m->follow, build, u->removed, u->kept);
                swap_note_unloaded(&m->swap, u->removed);
                return SWAP_EVENT_UNLOAD_DONE;
        case NODE_UNLOAD_WOULD_REMOVE: /* observe (node-ops-observe.c) */
                free(m->swap.last_blockers);
                m->swap.last_blockers = NULL;
                observe_report_would_unload(&m->swap, &m->follow, build, u->removed);
                return SWAP_EVENT_UNLOAD_WOULD;
        case NODE_UNLOAD_REFUSED:
                note_and_tell_blockers(m, build, &u->blockers);
                lifecycle_report_earlier_blocked(&m->swap, &m->follow, &u->blockers);
                return SWAP_EVENT_UNLOAD_REFUSED;
        case NODE_UNLOAD_FAILED_RESTORED:
                /* a transport may have gone */
                swap_fabrics_connect(&m->fabrics, &m->swap, &m->follow, &m->loop, "after the failed unload");
                note_and_tell_failure(m, u->failed_module,
                                      "Unloading %s failed (%s); the modules removed before it were put back.",
                                      u->failed_module ?: "the stack", strerror(u->failed_errno ?: EIO));
                return SWAP_EVENT_UNLOAD_FAILED;
        default:
                note_and_tell_failure(m, u->failed_module,
                                      "Unloading %s failed (%s) and putting the stack back failed too.",
                                      u->failed_module ?: "the stack", strerror(u->failed_errno ?: EIO));
                return SWAP_EVENT_UNLOAD_FAILED_UNRESTORED;
        }
}

#define WAITING_FOR_CAPTURE "waiting for " FABRICS_UNIT ".service to capture the NVMe over Fabrics connections"

static SwapEvent unload_waits_for_capture(Manager *m, const char *build) {
        NodeBlockers *b = NULL;

        /* In use: said as always, and no capture yet (it would be stale by the time the use ends). */
        if (m->ops->check_usage(m->ops->userdata, &b) >= 0 && b->n > 0) {
                note_and_tell_blockers(m, build, b);
                lifecycle_report_earlier_blocked(&m->swap, &m->follow, b);
                node_blockers_free(b);
                return SWAP_EVENT_UNLOAD_REFUSED;
        }
        node_blockers_free(b);
        swap_fabrics_capture(&m->fabrics, &m->swap, &m->follow, &m->loop);
        if (m->swap.last_blockers && streq(m->swap.last_blockers, WAITING_FOR_CAPTURE))
                return SWAP_EVENT_UNLOAD_REFUSED;
        free(m->swap.last_blockers);
        m->swap.last_blockers = strdup(WAITING_FOR_CAPTURE);
        log_info("Unload of the NVMe stack %s: it drops live connections.", WAITING_FOR_CAPTURE);
        return SWAP_EVENT_UNLOAD_REFUSED;
}

/* 0 with *ret_fd (or -EBADF when there is no pidfd to confirm it with),
 * -ESRCH when the container's init is gone, -errno. */
static int open_container_root(Manager *m, int *ret_fd) {
        int pidfd = driver_container_pidfd(&m->follow.container);

        *ret_fd = -EBADF;
        if (pidfd < 0)
                return 0;
        return container_root_open(m->follow.container.pid, pidfd, ret_fd);
}

/* The load that follows at the ready file, prepared before the node goes
 * driverless (NodeOps.prepare_load): the tree and modules action_load()
 * asks for. The load reads itself whatever is not prepared, or no longer
 * the same, and checks everything either way: a failure here costs only
 * the time it was meant to save. */
static void prepare_load(Manager *m) {
        _cleanup_free_ char *tree = NULL, *release = NULL, *in_root = NULL;
        _cleanup_close_ int root_fd = -EBADF;
        int r;

        if (!driver_container_followed(&m->follow.container) || m->follow.container.pid <= 0)
                return (void) m->ops->prepare_load(m->ops->userdata, NULL, -EBADF, NULL);
        r = host_kernel_release(&release);
        if (r >= 0)
                r = driver_container_module_tree(&m->follow.container, release, &tree);
        if (r >= 0)
                r = open_container_root(m, &root_fd);
        if (r >= 0 && root_fd >= 0 && asprintf(&in_root, "lib/modules/%s", release) < 0)
                r = -ENOMEM;
        if (r >= 0)
                r = m->ops->prepare_load(m->ops->userdata, root_fd >= 0 ? in_root : tree, root_fd,
                                         (char *const *) swap_modules_wanted(m->config, &m->swap));
        if (r < 0)
                log_debug_errno(r, "Cannot prepare the load from %s before the unload, it reads the tree after: %m",
                                tree ?: "the driver container's tree");
}

static SwapEvent action_unload(Manager *m) {
        NodeUnloadResult *u = NULL;
        const char *build;
        SwapEvent ev;
        bool at_ready;
        int r;

        build = record_before_unload(m, &r);
        if (r < 0) {
                /* Connections nobody could bring back: not a swap. */
                note_and_tell_failure(m, NULL,
                                      "Cannot record the node's NVMe over Fabrics connections before the unload (%s): "
                                      "not unloading the %s NVMe stack, it would drop them with nothing to reconnect "
                                      "them.",
                                      strerror(-r), build);
                return SWAP_EVENT_UNLOAD_FAILED;
        }
        if (r > 0) /* the capture is awaited: blocked on it, its answer re-checks */
                return unload_waits_for_capture(m, build);
        /* The load's host tree parsed before the node goes driverless when the
         * load follows at once (the ready file), else after the unload, while
         * the container compiles: never inside the driverless window, nor
         * between a container's start and the in-tree stack's removal. At the
         * ready file the container's tree is complete: its part of the load
         * is prepared then too. Both before the guard's usage re-check
         * inside unload(), never between it and the removal. */
        at_ready = swap_moment_unload_at(m->config, &m->follow) == UNLOAD_AT_DRIVER_READY;
        if (at_ready && m->ops->prepare_load)
                prepare_load(m);
        swap_loop_save(&m->loop, SWAP_SAVE_STEP); /* what goes is on disk before it goes */
        r = m->ops->unload(m->ops->userdata, m->swap.record.build_modules, &u);
        node_changed(m);
        if (!at_ready && m->ops->prepare_load && r >= 0 && u->outcome == NODE_UNLOAD_REMOVED)
                (void) m->ops->prepare_load(m->ops->userdata, NULL, -EBADF, NULL);
        swap_pin_refresh(m->pin, m->usage, &m->swap, &m->follow, &m->loop); /* the unload let go of the pin: take it again if still in use */
        if (r < 0) {
                swap_fabrics_unload_over(&m->fabrics, &m->swap, &m->follow, &m->loop, false);
                log_error_errno(r, "Cannot unload the %s NVMe stack: %m", build);
                return SWAP_EVENT_UNLOAD_FAILED;
        }
        swap_fabrics_unload_over(&m->fabrics, &m->swap, &m->follow, &m->loop,
                                 u->outcome == NODE_UNLOAD_REMOVED || u->outcome == NODE_UNLOAD_FAILED_RESTORED ||
                                         u->outcome == NODE_UNLOAD_FAILED_UNRESTORED);
        ev = unload_outcome(m, u, build);
        node_unload_result_free(u);
        return ev;
}

static SwapEvent action_recheck(Manager *m) {
        NodeBlockers *b = NULL;
        int r;

        r = m->ops->check_usage(m->ops->userdata, &b);
        if (r < 0) {
                log_warning_errno(r, "Cannot check NVMe namespace use, staying blocked: %m");
                return SWAP_EVENT_UNLOAD_REFUSED;
        }
        if (b->n > 0) {
                swap_fabrics_capture_stale(&m->fabrics);
                note_and_tell_blockers(m, loaded_build(m), b);
                lifecycle_report_earlier_blocked(&m->swap, &m->follow, b);
                node_blockers_free(b);
                return SWAP_EVENT_UNLOAD_REFUSED;
        }
        node_blockers_free(b);
        log_info("The namespaces that blocked the unload are free now: unloading.");
        return action_unload(m);
}

static SwapEvent action_load(Manager *m) {
        _cleanup_free_ char *tree = NULL, *release = NULL, *in_root = NULL;
        _cleanup_strv_free_ char **modules = NULL;
        _cleanup_close_ int root_fd = -EBADF;
        NodeLoadResult *l = NULL;
        int r;

        if (!driver_container_followed(&m->follow.container) || m->follow.container.pid <= 0) {
                note_and_tell_failure(m, NULL, "The driver container is gone: nothing to load its build from.");
                return SWAP_EVENT_LOAD_FAILED;
        }
        r = host_kernel_release(&release);
        if (r < 0) {
                note_and_tell_failure(m, NULL, "Cannot tell the running kernel's release: %s.", strerror(-r));
                return SWAP_EVENT_LOAD_FAILED;
        }
        r = driver_container_module_tree(&m->follow.container, release, &tree);
        if (r < 0) {
                note_and_tell_failure(m, NULL, "Out of memory.");
                return SWAP_EVENT_LOAD_FAILED;
        }
        /* lifecycle: stack modules come only from the container's
         * tree: none there is not a swap, whatever the host's tree has. */
        if (lifecycle_tree_lacks_build(&m->swap, &m->follow, m->config, tree) ||
            swap_fabrics_tree_lacks_transport(&m->follow, &m->swap, tree))
                return SWAP_EVENT_LOAD_NO_BUILD;
        if (lifecycle_modules_to_load(&m->swap, &m->follow, m->config, &modules) < 0) {
                note_and_tell_failure(m, NULL, "Out of memory.");
                return SWAP_EVENT_LOAD_FAILED;
        }
        /* trust: the container's root as an fd, confirmed through its pidfd
         * (a reused pid is not the container); its tree is resolved inside
         * that root. Without a pidfd, the path (the library still keeps every
         * file inside the tree). */
        r = open_container_root(m, &root_fd);
        if (r == -ESRCH) {
                note_and_tell_failure(m, NULL, "The driver container is gone: nothing to load its build from.");
                return SWAP_EVENT_LOAD_FAILED;
        }
        if (r < 0) {
                note_and_tell_failure(m, NULL, "Cannot open the driver container's root /proc/%d/root: %s.",
                                      (int) m->follow.container.pid, strerror(-r));
                return SWAP_EVENT_LOAD_FAILED;
        }
        if (root_fd >= 0 && asprintf(&in_root, "lib/modules/%s", release) < 0) {
                note_and_tell_failure(m, NULL, "Out of memory.");
                return SWAP_EVENT_LOAD_FAILED;
        }
        swap_loop_save(&m->loop, SWAP_SAVE_STEP);
        r = m->ops->load_from(m->ops->userdata, root_fd >= 0 ? in_root : tree, root_fd, modules,
                              m->config->load_timeout_sec, &l);
        node_changed(m);
        if (r < 0) {
                note_and_tell_failure(m, NULL, "Cannot load the NVMe stack from %s: %s.", tree, strerror(-r));
                return SWAP_EVENT_LOAD_FAILED;
        }
        if (l->failed_module && l->failed_errno == ENOPKG) {
                /* The library: a stack module the container's tree lacks. */
                lifecycle_load_no_build(&m->swap, &m->follow, l->failed_module, l->failed_reason ?: "not in the container's tree");
                node_load_result_free(l);
                return SWAP_EVENT_LOAD_NO_BUILD;
        }
        if (l->failed_module && l->failed_errno == ETIMEDOUT) {
                /* Name the knob: a slow node wants a longer deadline, a hostile tree does not. */
                note_and_tell_failure(m, l->failed_module,
                                      "Loading from %s ran past its deadline (LoadTimeoutSec=%u): %s.", tree,
                                      m->config->load_timeout_sec, l->failed_reason ?: "");
                node_load_result_free(l);
                return SWAP_EVENT_LOAD_FAILED;
        }
        if (l->failed_module) {
                note_and_tell_failure(m, l->failed_module, "Loading %s from %s failed: %s (%s).", l->failed_module,
                                      tree, l->failed_reason ?: "", strerror(l->failed_errno ?: EIO));
                node_load_result_free(l);
                return SWAP_EVENT_LOAD_FAILED;
        }
        if (l->would) { /* observe (node-ops-observe.c) */
                observe_report_would_load(&m->swap, &m->follow, l, tree);
                node_load_result_free(l);
                return SWAP_EVENT_LOAD_WOULD;
        }
        swap_note_loaded(&m->swap, l);
        swap_report_loaded(l, tree);
        node_load_result_free(l);
        /* through the container's transports */
        swap_fabrics_connect(&m->fabrics, &m->swap, &m->follow, &m->loop, "after the load");
        return SWAP_EVENT_LOAD_DONE;
}

/* Out-of-tree modules left by a load that never finished (a daemon killed
 * mid-load whose container then vanished, found by tests/faults, row
 * vanish:during-load) would have the in-tree nvme loaded against NVIDIA's
 * nvme_core: take them out first, through the guard (never forced, refused
 * if anything is in use). 0 when there was nothing or it is gone. */
static int remove_partial_replacement(Manager *m, char **ret_why) {
        NodeStack *stack = NULL;
        NodeUnloadResult *u = NULL;
        bool foreign = false;
        int r;

        r = swap_snapshot_recheck(&m->step, m->ops, &stack);
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
        r = m->ops->unload(m->ops->userdata, m->swap.record.build_modules, &u);
        node_changed(m);
        swap_pin_refresh(m->pin, m->usage, &m->swap, &m->follow, &m->loop);
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

static SwapEvent action_restore(Manager *m) {
        _cleanup_free_ char *why = NULL;
        NodeLoadResult *l = NULL;
        SwapEvent ev = SWAP_EVENT_RESTORE_DONE;
        int r;

        /* The restoring state is on disk before anything changes. */
        swap_loop_save(&m->loop, SWAP_SAVE_STEP);
        /* Let the in-tree stack come back whatever way the library loads it. */
        r = reload_block_remove();
        if (r < 0)
                log_warning_errno(r, "Cannot remove the reload block " RELOAD_BLOCK_PATH ", ignoring: %m");
        r = remove_partial_replacement(m, &why);
        if (r < 0) {
                note_and_tell_failure(m, NULL,
                                      "Cannot remove the half-loaded out-of-tree NVMe stack before restoring the "
                                      "in-tree one: %s%s.",
                                      why && *why ? why : strerror(-r),
                                      why && *why ? "; it stays loaded and keeps driving the namespaces" : "");
                return SWAP_EVENT_RESTORE_FAILED;
        }
        r = m->ops->restore(m->ops->userdata, swap_modules_wanted(m->config, &m->swap), &l);
        node_changed(m);
        if (r < 0) {
                note_and_tell_failure(m, NULL,
                                      "Cannot restore the in-tree NVMe stack: %s. The node has no NVMe driver.",
                                      strerror(-r));
                return SWAP_EVENT_RESTORE_FAILED;
        }
        if (l->failed_module) {
                note_and_tell_failure(m, l->failed_module,
                                      "Restoring the in-tree %s failed: %s (%s). The node may have no NVMe driver.",
                                      l->failed_module, l->failed_reason ?: "", strerror(l->failed_errno ?: EIO));
                ev = SWAP_EVENT_RESTORE_FAILED;
        }
        m->swap.restore_rehearsed = l->would;
        if (l->would) /* observe (node-ops-observe.c) */
                observe_report_would_restore(&m->swap, &m->follow, l);
        else if (ev == SWAP_EVENT_RESTORE_DONE)
                /* through the in-tree transports */
                swap_fabrics_connect(&m->fabrics, &m->swap, &m->follow, &m->loop, "after the restore");
        node_load_result_free(l);
        return ev;
}

SwapEvent swap_actions_run(Manager *m, SwapAction a) {
        SwapEvent ev;

        switch (a) {
        case SWAP_ACTION_UNLOAD:
                m->stack.restore_gave_up = false;
                return action_unload(m);
        case SWAP_ACTION_RECHECK_USAGE:
                return action_recheck(m);
        case SWAP_ACTION_LOAD:
                m->stack.restore_gave_up = false;
                return action_load(m);
        case SWAP_ACTION_RESTORE:
                ev = action_restore(m);
                /* Remembered so that the stack's next settle does not try the
                 * same restore again (manager.c, on_stack_settled()). */
                m->stack.restore_gave_up = ev == SWAP_EVENT_RESTORE_FAILED;
                return ev;
        case SWAP_ACTION_REPORT_RELOAD:
                swap_report_reload(&m->swap, &m->follow);
                return _SWAP_EVENT_INVALID;
        case SWAP_ACTION_REPORT_STALE_READY:
                lifecycle_report_stale_ready(&m->swap, &m->follow, m->config);
                return _SWAP_EVENT_INVALID;
        default:
                return _SWAP_EVENT_INVALID;
        }
}
