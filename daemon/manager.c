/* SPDX-License-Identifier: Apache-2.0 */
/* The manager: the event sources and their handlers, which turn what they see into events
 * for the dispatch loop (manager-dispatch.c); start and stop. The start-up
 * reconcile, which decides the state to resume in: manager-reconcile.c. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "container/container-started.h"
#include "node/pin-holder.h"
#include "host/host-root.h"
#include "manager-dispatch.h"
#include "manager-sources.h"
#include "manager-fabrics.h"
#include "manager-labels.h"
#include "manager-lifecycle.h"
#include "manager-reader.h"
#include "manager-reconcile.h"
#include "manager-signals.h"
#include "manager-timers.h"
#include "manager.h"
#include "modules/module-stack.h"
#include "publish/log.h"
#include "publish/report.h"
#include "swap/pin-report.h"
#include "swap/pod-end.h"
#include "swap/swap-metrics.h"
#include "swap/reload-block.h"
#include "swap/stack-judge.h"
#include "swap/swap-context.h"
#include "swap/swap-fabrics.h"
#include "swap/swap-lifecycle.h"
#include "swap/swap-note.h"
#include "swap/swap-pin.h"
#include "swap/swap-record.h"
#include "swap/swap-snapshot.h"
#include "swap/swap-report.h"
#include "util/macro.h"
#include "watch/usage-watch.h"

/* ---- the driver container --------------------------------------------- */

/* Whether the followed container's process is still there, as its pidfd
 * says (POLLIN once it exited). No pidfd: unknown, false. */
static bool container_alive(const Manager *m) {
        struct pollfd p = { .events = POLLIN };

        if (!m->follow.container.exit_source)
                return false;
        p.fd = sd_event_source_get_io_fd(m->follow.container.exit_source);
        return p.fd >= 0 && poll(&p, 1, 0) == 0;
}

/* Whether the followed container's process has exited: its pidfd when
 * there is one (a zombie not yet reaped still answers kill(2)), else
 * whether its pid answers at all. */
static bool container_gone(const Manager *m) {
        if (m->follow.container.exit_source)
                return !container_alive(m);
        return !container_pid_running(m->follow.container.pid);
}

static void container_exited(Manager *m, const char *why) {
        if (!driver_container_followed(&m->follow.container))
                return;
        log_info("Driver container %.12s is gone (%s).", m->follow.container.identity->id, why);
        pod_end_container_exited(&m->follow, &m->swap, &m->loop);
        lifecycle_container_exited(&m->follow, m->config);
        pin_holder_driver_container(m->pin, m->follow.container.identity->id, m->follow.container.identity->pod_name, false);
        driver_container_forget(&m->follow.container);
        if (m->swap.started)
                manager_dispatch(m, SWAP_EVENT_CONTAINER_EXITED);
}

static int on_container_exit(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        container_exited(userdata, "its process exited");
        return 0;
}

/* The pin matched to the namespaces' use now (swap-pin.h). */
static void pin_refresh(Manager *m) {
        swap_pin_refresh(m->pin, m->usage, &m->swap, &m->follow, &m->loop);
}

static void container_running(Manager *m, const ContainerIdentity *c, pid_t pid) {
        int r;

        /* The followed one exited, its pidfd's event still pending (sd-event
         * may run the store's event first: seen on 6.12 under load). Its end
         * comes first, as it happened, so what it left (the ready file of a
         * killed attempt) is never taken for the next one's. */
        if (driver_container_followed(&m->follow.container) && !driver_container_is(&m->follow.container, c->id) &&
            container_gone(m))
                container_exited(m, "its process exited");

        r = driver_container_follow(&m->follow.container, m->event, c, pid, on_container_exit, m);
        if (r == -ENOMEM) {
                log_oom();
                return;
        }
        if (r == DRIVER_CONTAINER_NOT_RUNNING && driver_container_is(&m->follow.container, c->id))
                container_exited(m, "its process is gone");
        if (r != DRIVER_CONTAINER_FOLLOWED)
                return;
        /* Again at the start (a store seen late, a rescan, a use begun since
         * the create): what we tell the container must be true now. */
        if (m->swap.started)
                pin_refresh(m);
        pin_holder_driver_container(m->pin, c->id, c->pod_name, true);
        manager_container_followed(m);
        if (!m->swap.started)
                return;
        manager_dispatch(m, SWAP_EVENT_CONTAINER_STARTED);
        if (m->follow.ready_stale)
                manager_dispatch(m, SWAP_EVENT_READY_STALE);
}

/* The store asks this when it reads a new container's config.json:
 * CRI-O's create, before the start, so before a driver container's openibd
 * can run. That is the moment a remover appears, and the always-on watch
 * has no event for a namespace held only by a plain open or mounted only
 * in another mount namespace (a pod's): a full usage check (every process's
 * open files, the exclusive-open probe that sees every mount namespace)
 * pins what it finds now (docs/ARCHITECTURE.md, "The pin": the watch's
 * blind spots). */
static bool want_container(const ContainerIdentity *c, void *userdata) {
        Manager *m = userdata;
        bool wanted = driver_container_wanted(m->config, c);

        if (wanted && m->swap.started)
                pin_refresh(m);
        return wanted;
}

static void on_store(ContainerStore *s, ContainerStoreEvent ev, const ContainerIdentity *c, pid_t pid, void *userdata) {
        Manager *m = userdata;

        if (ev == CONTAINER_STORE_PID)
                container_running(m, c, pid);
        else if (driver_container_is(&m->follow.container, c->id))
                container_exited(m, "removed from the container store");
}

static void on_scope(ScopeWatch *w, const char *id, bool added, void *userdata) {
        Manager *m = userdata;

        if (added || !driver_container_is(&m->follow.container, id))
                return;
        /* A UnitRemoved is a hint (systemd sends one for every unit on
         * daemon-reload, systemd#376): the pidfd says whether it exited. */
        if (container_alive(m)) {
                log_info("The crio scope of driver container %.12s was removed but its process runs: not an exit "
                         "(systemd reload?).", id);
                return;
        }
        container_exited(m, "its crio scope was removed");
}

/* ---- ready file, uevents, mounts -------------------------------------- */

static void on_ready(PathWatch *w, bool exists, void *userdata) {
        Manager *m = userdata;

        /* Only one made for the followed container counts; one removed since is gone. */
        if (exists && !lifecycle_ready_counts(&m->follow, m->config) && !m->follow.ready_stale)
                exists = false;
        if (!exists) {
                if (m->ready_present || m->follow.ready_stale)
                        log_info("Ready file %s is gone.", m->config->ready_file);
                m->ready_present = m->follow.ready_stale = false;
                return;
        }
        if (m->follow.ready_stale) {
                log_info("Ready file %s appeared but predates driver container %.12s.", m->config->ready_file,
                         m->follow.container.identity ? m->follow.container.identity->id : "?");
                m->ready_present = false;
                if (m->swap.started)
                        manager_dispatch(m, SWAP_EVENT_READY_STALE);
                return;
        }
        if (m->ready_present)
                return;
        m->ready_present = true;
        log_info("Ready file %s appeared.", m->config->ready_file);
        if (m->swap.started)
                manager_dispatch(m, SWAP_EVENT_READY_APPEARED);
}

static int on_recheck(sd_event_source *s, void *userdata) {
        Manager *m = userdata;

        if (swap_state_waits_for_usage(m->swap.state)) {
                /* The mount watch may come first, and the unload lets go of
                 * the pin without a word: match the pin (and say UNPINNED)
                 * at the moment the use ended, not after the unload. */
                pin_refresh(m);
                manager_dispatch(m, SWAP_EVENT_USAGE_CHANGED);
        } else if (swap_state_driver_settled(m->swap.state) && m->swap.record.missing_namespaces) {
                SwapNodeView node = manager_node_view(m);

                if (swap_note_namespaces(&m->swap, &node))
                        swap_report_namespaces(&m->swap, &m->follow, SWAPGUARD_MESSAGE_NAMESPACES_BACK, "Later");
                manager_save(m, SWAP_SAVE_CHANGED);
                swap_status_update(&m->swap, &m->follow);
                manager_labels_update(m); /* GDS-ready once every namespace is back */
        }
        return 0;
}

/* Coalesce bursts (a mount storm, a partition table re-read) into one check. */
static void schedule_recheck(Manager *m) {
        if (!m->swap.started)
                return;
        if (!swap_state_waits_for_usage(m->swap.state) &&
            !(swap_state_driver_settled(m->swap.state) && m->swap.record.missing_namespaces))
                return;
        (void) sd_event_source_set_enabled(m->sources->recheck, SD_EVENT_ONESHOT);
}

static void on_mounts(MountWatch *w, void *userdata) {
        schedule_recheck(userdata);
}

/* The always-on watch saw the namespaces' use change (coalesced). */
static void on_usage(UsageWatch *w, void *userdata) {
        Manager *m = userdata;

        if (!m->swap.started)
                return;
        pin_refresh(m);
        schedule_recheck(m);
}

static void module_added(Manager *m, const char *name) {
        const NodeStack *stack = NULL;
        const NodeModule *x;
        bool in_tree;

        /* The step the event starts reads the same snapshot. */
        if (swap_snapshot_stack(&m->step, m->ops, &m->loop, &stack) < 0)
                return;
        x = node_stack_find(stack, name);
        in_tree = x && x->origin == NODE_ORIGIN_IN_TREE;
        if (x)
                manager_dispatch(m, in_tree ? SWAP_EVENT_MODULE_ADDED_IN_TREE : SWAP_EVENT_MODULE_ADDED_OTHER);
}

static void rescan_all(Manager *m) {
        SwapContext ctx;

        log_warning("Kernel uevents were lost (ENOBUFS): rescanning modules, containers and devices.");
        (void) container_store_rescan(m->sources->store);
        manager_stack_changed(m); /* a lost module uevent may hide a broken stack */
        manager_nvfs_changed(m);  /* ... or nvidia_fs coming or going */
        manager_labels_update(m);
        if (manager_read_context(m, &ctx) < 0)
                return;
        swap_context_noted(&m->follow, &ctx);
        if (swap_state_is_unloaded(m->swap.state) && ctx.stack_loaded)
                manager_dispatch(m, ctx.replacement_loaded ? SWAP_EVENT_MODULE_ADDED_OTHER
                                                           : SWAP_EVENT_MODULE_ADDED_IN_TREE);
        else if (!ctx.stack_loaded)
                manager_dispatch(m, SWAP_EVENT_STACK_GONE);
        schedule_recheck(m);
}

void manager_uevent(Manager *m, UdevWatchEvent ev, const char *name) {
        SwapContext ctx;

        if (!m->swap.started)
                return;
        switch (ev) {
        case UDEV_WATCH_MODULE_ADD:
                if (nvme_stack_module(name)) {
                        manager_stack_changed(m);
                        module_added(m, name);
                } else if (streq(name, "nvidia_fs")) {
                        manager_nvfs_changed(m); /* the GDS hook generation may change */
                        manager_labels_update(m);
                }
                break;
        case UDEV_WATCH_MODULE_REMOVE:
                if (streq(name, "nvidia_fs")) {
                        manager_nvfs_changed(m); /* the GDS hook generation may change */
                        manager_labels_update(m);
                }
                if (!nvme_stack_module(name))
                        break;
                manager_stack_changed(m);
                if (manager_read_context(m, &ctx) < 0)
                        break;
                swap_context_noted(&m->follow, &ctx);
                if (!ctx.stack_loaded)
                        manager_dispatch(m, SWAP_EVENT_STACK_GONE);
                break;
        case UDEV_WATCH_BLOCK_CHANGE:
                usage_watch_poke(m->usage);
                schedule_recheck(m);
                break;
        case UDEV_WATCH_BLOCK_OTHER:
                usage_watch_poke(m->usage); /* a holder (dm, md) may have come or gone */
                break;
        case UDEV_WATCH_OVERFLOW:
                usage_watch_poke(m->usage);
                rescan_all(m);
                break;
        }
}

static void on_uevent(UdevWatch *w, UdevWatchEvent ev, const char *name, void *userdata) {
        manager_uevent(userdata, ev, name);
}

/* ---- lifecycle -------------------------------------------------------- */

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        /* Every exit path: the guard must not keep the host from loading nvme. */
        if (m->swap.started)
                (void) reload_block_remove();
        swap_snapshot_forget(&m->step);
        if (m->sources) {
                container_store_free(m->sources->store);
                path_watch_free(m->sources->ready);
                udev_watch_free(m->sources->udev);
                scope_watch_free(m->sources->scopes);
                mount_watch_free(m->sources->mounts);
        }
        usage_watch_free(m->usage);
        if (m->sources) /* after both subscribers */
                mount_tables_unref(m->sources->mount_tables);
        pin_holder_free(m->pin);
        if (m->sources) {
                sd_event_source_disable_unref(m->sources->sig_term);
                sd_event_source_disable_unref(m->sources->sig_int);
                sd_event_source_disable_unref(m->sources->sig_hup);
        }
        swap_fabrics_free(&m->fabrics, &m->loop); /* a capture or a connect still running goes on in its own unit */
        if (m->sources) {
                sd_event_source_disable_unref(m->sources->deadline);
                sd_event_source_disable_unref(m->sources->recheck);
                sd_event_source_disable_unref(m->sources->capture_retry);
                manager_labels_free(m);
                manager_reader_free(m);
        }
        manager_timers_free(m);
        lifecycle_free(&m->follow, &m->loop);
        sd_event_unref(m->event);
        driver_container_forget(&m->follow.container);
        config_free(m->config);
        state_file_clear(&m->swap.record);
        free(m->config_path);
        free(m->swap.failure);
        free(m->swap.last_blockers);
        free(m->swap.restore_container);
        swap_metrics_free(m->publish.metrics);
        free(m->sources);
        free(m);
        return NULL;
}

int manager_new(const ManagerOptions *opts, Config *config, Manager **ret) {
        _cleanup_(manager_freep) Manager *m = calloc(1, sizeof(*m));
        int r;

        if (!m)
                return -ENOMEM;
        m->sources = calloc(1, sizeof(*m->sources));
        if (!m->sources)
                return -ENOMEM;
        m->config_path = strdup(opts->config_path);
        if (!m->config_path)
                return -ENOMEM;
        m->config_optional = opts->config_optional;
        m->ops = opts->ops;
        m->pin = pin_holder_new(m->ops);
        if (!m->pin)
                return -ENOMEM;
        m->swap.state = swap_state_initial();
        m->swap.record.state = swap_state_initial();
        m->swap.restore_cause = _SWAP_EVENT_INVALID;
        r = sd_event_default(&m->event);
        if (r < 0)
                return r;
        manager_timers_init(m);
        m->config = config;
        *ret = TAKE_PTR(m);
        return 0;
}

/* Sources whose absence only degrades what we see: log once, go on. */
static void add_optional_watches(Manager *m) {
        const char *missing = NULL;
        int r;

        r = udev_watch_new(m->event, on_uevent, m, &m->sources->udev);
        if (r < 0)
                log_warning_errno(r, "Cannot listen to kernel uevents, module reloads will be seen late: %m");
        if (host_root_is_real()) {
                r = scope_watch_new(m->event, on_scope, m, &m->sources->scopes);
                if (r < 0)
                        log_warning_errno(r, "Cannot watch crio-*.scope units over the system bus, "
                                          "relying on pidfiles and the container store: %m");
        } else
                log_info("Fake root %s: not watching systemd scopes, relying on pidfiles and the container store.",
                         host_root());
        r = mount_tables_new(m->event, &m->sources->mount_tables);
        if (r >= 0)
                r = mount_watch_new(m->sources->mount_tables, on_mounts, m, &m->sources->mounts);
        if (r < 0)
                log_info("Cannot poll /proc/1/mountinfo (%s): blocked swaps are re-checked on block uevents only.",
                         strerror(-r));
        r = usage_watch_new(m->event, m->sources->mount_tables, on_usage, m, &m->usage, &missing);
        if (r < 0)
                log_warning_errno(r, "Cannot watch NVMe namespace use: the pin follows our own checks only: %m");
        else if (missing)
                log_info("Cannot poll %s: the pin follows block uevents only.", missing);
}

static int add_watches(Manager *m) {
        _cleanup_free_ char *ready = NULL, *store = NULL;
        int r;

        r = manager_signals_add(m);
        if (r < 0)
                return r;
        manager_fabrics_setup(m);
        r = sd_event_add_defer(m->event, &m->sources->recheck, on_recheck, m);
        if (r < 0)
                return log_error_errno(r, "Cannot create the re-check source: %m");
        (void) sd_event_source_set_enabled(m->sources->recheck, SD_EVENT_OFF);
        (void) sd_event_source_set_description(m->sources->recheck, "usage-recheck");
        manager_labels_setup(m);

        if (host_path(m->config->ready_file, &ready) < 0 || host_path(m->config->container_store, &store) < 0)
                return log_oom();
        r = path_watch_new(m->event, ready, "ready-file", on_ready, m, &m->sources->ready);
        if (r < 0)
                return log_error_errno(r, "Cannot watch the ready file %s: %m", ready);
        m->ready_present = path_watch_exists(m->sources->ready);
        r = container_store_new(m->event, store, want_container, on_store, m, &m->sources->store);
        if (r < 0)
                return log_error_errno(r, "Cannot watch the container store %s: %m", store);
        add_optional_watches(m);
        return 0;
}

int manager_start(Manager *m) {
        int r;

        r = add_watches(m);
        if (r < 0)
                return r;
        (void) swap_metrics_start(&m->publish, &m->loop); /* its counters before the reconcile's transitions */
        manager_reconcile(m);
        /* A stack left broken while we were down (a previous instance killed
         * mid-repair, with nvme_core back but not nvme: tests/faults, row
         * kill:repairing) sends no uevent: judge it as after one. */
        manager_stack_changed(m);
        /* A record left pending: asked for, READY=1 does not wait. */
        swap_fabrics_start(&m->fabrics, &m->swap, &m->follow, &m->loop);
        /* Pinned again before READY=1: no window after it claims to be up (only the one while we were down). */
        pin_refresh(m);
        report_event(LOG_INFO, SWAPGUARD_MESSAGE_STARTED,
                     &(ReportFields) { .state = swap_state_to_string(m->swap.state),
                                       .container_id = swap_record_container_id(&m->follow, &m->swap) },
                     "nvme-swapguard started in state %s.", swap_state_to_string(m->swap.state));
        /* Pings only from the loop: a stuck loop is a dead daemon. */
        r = sd_event_set_watchdog(m->event, true);
        if (r < 0)
                log_warning_errno(r, "Cannot enable the watchdog, ignoring: %m");
        (void) sd_notify(0, "READY=1");
        return 0;
}

int manager_run(Manager *m) {
        int r = sd_event_loop(m->event);

        if (r < 0)
                return log_error_errno(r, "Event loop failed: %m");
        return r;
}

SwapState manager_get_state(const Manager *m) {
        return m->swap.state;
}
