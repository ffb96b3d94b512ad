/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "container/container-store.h"
#include "container/container-time.h"
#include "container/container-tree.h"
#include "host/host-kernel.h"
#include "host/host-root.h"
#include "publish/log.h"
#include "publish/report.h"
#include "swap/pod-end.h"
#include "swap/stack-health.h"
#include "swap/swap-context.h"
#include "swap/swap-lifecycle.h"
#include "swap/swap-snapshot.h"
#include "swap/swap-record.h"
#include "util/fileio.h"
#include "util/strv.h"

#define GPU_OPERATOR_NVFS_CONTAINER "nvidia-fs-ctr"

static const char *followed_id(const SwapFollow *f) {
        return f->container.identity ? f->container.identity->id : NULL;
}

/* The followed container's module tree, openable (through host_path()). */
static int container_tree_path(const SwapFollow *f, char **ret_host, char **ret_openable) {
        _cleanup_free_ char *release = NULL, *tree = NULL;
        int r;

        r = host_kernel_release(&release);
        if (r >= 0)
                r = driver_container_module_tree(&f->container, release, &tree);
        if (r >= 0 && ret_openable)
                r = host_path(tree, ret_openable);
        if (r < 0)
                return r;
        if (ret_host)
                *ret_host = TAKE_PTR(tree);
        return 0;
}

/* ---- the ready file --------------------------------------------------- */

bool lifecycle_ready_counts(SwapFollow *f, const Config *config) {
        _cleanup_free_ char *path = NULL;
        const ContainerIdentity *c = f->container.identity;
        uint64_t made;
        int r;

        f->ready_stale = false;
        if (host_path(config->ready_file, &path) < 0)
                return false;
        /* Asked of the disk, not of the path watch: its flag lags behind a
         * removal whose event is still queued (a restarted attempt's
         * entrypoint removes the file first thing, while the daemon is busy
         * following it: seen in the emulated VM tests), and a file that is gone
         * must never count. */
        r = file_made_usec(path, &made);
        if (r == -ENOENT || r == -ENOTDIR)
                return false;
        if (r < 0 || !c)
                return true; /* there, of unknown age, or no container to judge it by */
        /* The file a crashed container left (the entrypoint removes
         * it only in its cleanup) was there when it ended: never the next
         * attempt's, whatever its creation time says. */
        if (made != f->ended_ready_usec && ready_file_freshness(made, c->created_usec) != READY_STALE)
                return true;
        f->ready_stale = true;
        return false;
}

void lifecycle_container_exited(SwapFollow *f, const Config *c) {
        _cleanup_free_ char *path = NULL;

        f->ended_ready_usec = 0;
        if (host_path(c->ready_file, &path) < 0 || file_made_usec(path, &f->ended_ready_usec) < 0)
                f->ended_ready_usec = 0;
}

void lifecycle_report_stale_ready(SwapMachine *s, const SwapFollow *f, const Config *c) {
        report_event(LOG_WARNING, SWAPGUARD_MESSAGE_READY_STALE,
                     &(ReportFields) { .state = swap_state_to_string(s->state), .container_id = followed_id(f) },
                     "Ignoring the ready file %s: it is older than driver container %.12s (left by an earlier "
                     "instance); waiting for this container's.",
                     c->ready_file, followed_id(f) ?: "?");
        swap_record_message(s, "ignoring a ready file older than the container");
}

/* ---- a newly followed container -------------------------------------- */

static void note(SwapMachine *s, const char *fmt, ...) _printf_(2, 3);
static void note(SwapMachine *s, const char *fmt, ...) {
        char *line = NULL;
        va_list ap;

        va_start(ap, fmt);
        if (vasprintf(&line, fmt, ap) < 0)
                line = NULL;
        va_end(ap);
        if (line && strv_push(&s->record.container_notes, line) < 0)
                free(line);
}

static void report_environment(SwapMachine *s, const SwapFollow *f, TreeBuild tree) {
        const DriverEnvDecision *d = &f->env;
        const char *id = followed_id(f);
        const char *restore = env_flag_to_string(d->restore_on_termination);
        char restore_field[64];
        char *extra[] = { restore_field, NULL };

        s->record.container_notes = strv_free(s->record.container_notes);
        note(s, "ENABLE_NFSRDMA=%s, UNLOAD_STORAGE_MODULES=%s, RESTORE_DRIVER_ON_POD_TERMINATION=%s",
             env_flag_to_string(d->enable_nfsrdma), env_flag_to_string(d->unload_storage_modules), restore);
        if (d->build_ruled_out) {
                report_event(LOG_WARNING, SWAPGUARD_MESSAGE_ENV_NO_NFSRDMA,
                             &(ReportFields) { .state = swap_state_to_string(s->state), .container_id = id },
                             "Driver container %.12s will build no NVMe modules: ENABLE_NFSRDMA is %s and its tree "
                             "holds no NVMe build. Not unloading the in-tree stack for it. Fix: ENABLE_NFSRDMA=true "
                             "in the NicClusterPolicy's spec.ofedDriver.env.",
                             id, env_flag_to_string(d->enable_nfsrdma));
                note(s, "no NVMe build will come: set ENABLE_NFSRDMA=true in spec.ofedDriver.env");
        }
        if (d->assumed) {
                report_event(LOG_INFO, SWAPGUARD_MESSAGE_ENV_ASSUMED,
                             &(ReportFields) { .state = swap_state_to_string(s->state), .container_id = id },
                             "Driver container %.12s: %s.", id, d->assumed);
                note(s, "assumed: %s", d->assumed);
        }
        snprintf(restore_field, sizeof(restore_field), "SWAPGUARD_ENV_VALUE=%s", restore);
        report_event(LOG_INFO, SWAPGUARD_MESSAGE_ENV_RESTORE_ON_STOP,
                     &(ReportFields) { .state = swap_state_to_string(s->state), .container_id = id, .extra = extra },
                     "Driver container %.12s: RESTORE_DRIVER_ON_POD_TERMINATION=%s: %s", id, restore,
                     d->restore_on_termination == ENV_FLAG_TRUE
                             ? "its stop takes NVIDIA's modules out (the NVMe build with them when unused); the "
                               "in-tree stack is put back then."
                             : "NVIDIA's NVMe build stays loaded after its pod stops, until the next driver "
                               "container (the container's own default is false).");
        log_debug("Container %.12s: tree build %d.", id, (int) tree);
}

/* The replacement loaded now came from before this container: the record
 * says another container loaded it, or (no record) the ready file does not
 * say this container got that far. */
static bool build_is_earlier(const SwapMachine *s, SwapFollow *f, const Config *c, const SwapNodeView *node) {
        const NodeStack *stack = NULL;
        const char *from = s->record.build_container_id;

        if (swap_snapshot_stack(node->step, node->ops, node->loop, &stack) < 0)
                return false;
        if (!node_stack_replacement_loaded(stack))
                return false;
        if (from)
                return !streq(from, followed_id(f));
        return !lifecycle_ready_counts(f, c);
}

bool lifecycle_container_followed(const SwapMachine *s, SwapFollow *f, const Config *c, const SwapNodeView *node) {
        const char *id = followed_id(f);
        bool ready;

        if (!id)
                return false;
        pod_end_container_followed(&f->pod_end, node->loop);
        ready = lifecycle_ready_counts(f, c);
        f->earlier_build = build_is_earlier(s, f, c, node);
        if (f->earlier_build)
                report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_EARLIER_BUILD,
                             &(ReportFields) { .state = swap_state_to_string(s->state), .container_id = id,
                                               .pod = f->container.identity->pod_name, .pid = f->container.pid },
                             "New driver container %.12s (pod %s) while the NVMe build of %.12s is loaded: taking "
                             "it out before the new container's openibd restart trips on it.",
                             id, f->container.identity->pod_name, s->record.build_container_id ?: "an earlier container");
        return ready;
}

int lifecycle_container_env(SwapMachine *s, SwapFollow *f, char **ret_tree, TreeBuild *ret_build) {
        _cleanup_free_ char *tree = NULL;
        TreeBuild build = TREE_BUILD_UNKNOWN;
        const char *id = followed_id(f);

        *ret_tree = NULL;
        *ret_build = TREE_BUILD_UNKNOWN;
        if (!id)
                return 0;
        if (f->env_reported_for && streq(f->env_reported_for, id))
                return 0;
        free(f->env_reported_for);
        f->env_reported_for = strdup(id);
        if (container_tree_path(f, NULL, &tree) >= 0)
                build = container_tree_build(tree, "nvme");
        f->env = driver_env_decide(f->container.identity->env, build);
        f->build_ruled_out = f->env.build_ruled_out;
        report_environment(s, f, build);
        *ret_tree = TAKE_PTR(tree);
        *ret_build = build;
        return 1;
}

/* ---- loading ---------------------------------------------------------- */

int lifecycle_modules_to_load(const SwapMachine *s, const SwapFollow *f, const Config *c, char ***ret) {
        char *const *wanted = swap_modules_wanted(c, s);
        char **l = NULL;

        *ret = NULL;
        if (!wanted)
                return 0;
        STRV_FOREACH(w, wanted) {
                if (streq(*w, "nvme_rdma") && !f->env.nvme_rdma_allowed) {
                        report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_ENV_NVME_RDMA_SKIPPED,
                                     &(ReportFields) { .state = swap_state_to_string(s->state), .module = "nvme_rdma",
                                                       .container_id = followed_id(f) },
                                     "Not loading nvme_rdma from driver container %.12s: UNLOAD_STORAGE_MODULES is "
                                     "%s, and its entrypoint refuses to start while nvme_rdma is loaded.",
                                     followed_id(f) ?: "?", env_flag_to_string(f->env.unload_storage_modules));
                        continue;
                }
                if (strv_extend(&l, *w) < 0) {
                        strv_free(l);
                        return -ENOMEM;
                }
        }
        *ret = l;
        return 0;
}

void lifecycle_load_no_build(SwapMachine *s, SwapFollow *f, const char *module, const char *reason) {
        f->build_ruled_out = true;
        report_event(LOG_WARNING, SWAPGUARD_MESSAGE_NO_BUILD,
                     &(ReportFields) { .state = swap_state_to_string(s->state), .module = module,
                                       .container_id = followed_id(f) },
                     "Driver container %.12s has no build of %s (%s): not a swap; the in-tree stack stays or is "
                     "put back.",
                     followed_id(f) ?: "?", module, reason);
        swap_record_message(s, "no-build: the container has no build of %s", module);
}

/* The followed container's init has exited (its pidfd polls readable from
 * the moment it exits), though the loop may not have dispatched that yet. */
static bool container_exited(const SwapFollow *f) {
        int pidfd = driver_container_pidfd(&f->container);
        struct pollfd p = { .fd = pidfd, .events = POLLIN };

        return pidfd >= 0 && poll(&p, 1, 0) > 0;
}

/* A module missing from a tree that is going away (the container ended
 * while we read its root: its files go first, the root last) says nothing
 * about the container's build. */
static bool tree_going(const SwapFollow *f, const char *path) {
        return container_exited(f) || path_exists(path) <= 0;
}

bool lifecycle_tree_lacks_build(SwapMachine *s, SwapFollow *f, const Config *c, const char *tree) {
        static const char *const must[] = { "nvme_core", "nvme" };
        char *const *wanted = swap_modules_wanted(c, s);
        _cleanup_free_ char *path = NULL;

        /* No tree at all (the root went with the container): a load failure
         * to report as such, not a container without a build. */
        if (host_path(tree, &path) < 0 || path_exists(path) <= 0)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(must); i++) {
                if (wanted && !strv_contains(wanted, must[i]))
                        continue;
                if (container_tree_build(path, must[i]) == TREE_BUILD_ABSENT) {
                        if (tree_going(f, path))
                                return false; /* the load fails on it, or the exit restores first */
                        lifecycle_load_no_build(s, f, must[i], "neither extra/ nor updates/ of its module tree has it");
                        return true;
                }
        }
        return false;
}

/* ---- reports on entering a state -------------------------------------- */

static const char *gds_match_to_string(NodeGdsMatch x) {
        switch (x) {
        case NODE_GDS_SAME: return "same";
        case NODE_GDS_DIFFERENT: return "different";
        case NODE_GDS_NO_HOOKS: return "no-hooks";
        default: return "unknown";
        }
}

/* Replaces *field with a copy of v (NULL without memory: the field is then
 * absent from the record, never stale). */
static void record_set(char **field, const char *v) {
        free(*field);
        *field = v ? strdup(v) : NULL;
}

void lifecycle_report_gds(SwapMachine *s, const SwapFollow *f, const Config *c, const SwapNodeView *node) {
        const NodeStack *stack = NULL;
        _cleanup_free_ char *tree = NULL;
        NodeGds *g = NULL;
        char *trees[] = { NULL, NULL };
        char exported[64], wanted[64], match[64];
        char *extra[] = { exported, wanted, match, NULL };
        const char *nvfs;
        pid_t pid = 0;
        _cleanup_free_ char *store = NULL, *release = NULL;

        if (!node->ops->check_gds)
                return;
        /* nvidia-fs.ko lives in the GPU Operator's nvidia-fs-ctr root when the host has none. */
        if (host_path(c->container_store, &store) >= 0 &&
            container_store_find_running(store, GPU_OPERATOR_NVFS_CONTAINER, &pid) >= 0 &&
            host_kernel_release(&release) >= 0 && asprintf(&tree, "/proc/%d/root/lib/modules/%s", (int) pid, release) >= 0)
                trees[0] = tree;
        /* nvme's hooks as the step's stack has them: kallsyms is read once. */
        if (swap_snapshot_stack_hooks(node->step, node->ops, node->loop, &stack) < 0)
                stack = NULL;
        if (node->ops->check_gds(node->ops->userdata, trees, stack ? node_stack_find(stack, "nvme") : NULL, &g) < 0)
                return;
        nvfs = !g->nvfs_loaded ? "not-loaded" : g->wanted ?: "unknown";
        snprintf(exported, sizeof(exported), "SWAPGUARD_GDS_EXPORTED=%s", g->exported ?: "none");
        snprintf(wanted, sizeof(wanted), "SWAPGUARD_GDS_WANTED=%s", nvfs);
        snprintf(match, sizeof(match), "SWAPGUARD_GDS_MATCH=%s", gds_match_to_string(g->match));
        report_event(g->match == NODE_GDS_DIFFERENT || g->match == NODE_GDS_NO_HOOKS ? LOG_WARNING : LOG_INFO,
                     SWAPGUARD_MESSAGE_GDS_GENERATION,
                     &(ReportFields) { .state = swap_state_to_string(s->state), .module = "nvme",
                                       .container_id = followed_id(f), .extra = extra },
                     "GDS hooks: %s.", g->description ?: "unknown");
        record_set(&s->record.gds, g->description);
        record_set(&s->record.gds_nvme, g->exported ?: "none");
        record_set(&s->record.gds_nvidia_fs, nvfs);
        record_set(&s->record.gds_match, gds_match_to_string(g->match));
        node_gds_free(g);
}

/* nvidia_fs came or went (a uevent): while swapped, say again whether it asks
 * for the hooks the loaded build exports; it may come long after the swap
 * (the GPU Operator's nvidia-fs-ctr starts on its own). */
bool lifecycle_nvfs_changed(SwapMachine *s, const SwapFollow *f, const Config *c, const SwapNodeView *node) {
        if (!swap_state_build_loaded(s->state))
                return false;
        lifecycle_report_gds(s, f, c, node);
        return true;
}

void lifecycle_note_build_container(SwapMachine *s, const SwapFollow *f) {
        const char *id = f->container.identity ? f->container.identity->id : NULL;

        /* Which container the loaded build came from: the one followed now
         * (loaded by us or by an older image itself). */
        if (id && !f->earlier_build) {
                free(s->record.build_container_id);
                s->record.build_container_id = strdup(id);
        }
}

void lifecycle_check_build_gone(SwapMachine *s, const SwapContext *ctx) {
        /* No out-of-tree build any more: the step's context says so. */
        if (!ctx->replacement_loaded) {
                free(s->record.build_container_id);
                s->record.build_container_id = NULL;
                s->record.build_modules = strv_free(s->record.build_modules);
        }
}

void lifecycle_report_no_build(const char *container_id, SwapEvent ev) {
        report_event(LOG_WARNING, SWAPGUARD_MESSAGE_NO_BUILD,
                     &(ReportFields) { .state = "no-build", .container_id = container_id },
                     "Driver container %.12s gives no NVMe build: not a swap, the in-tree NVMe stack "
                     "stays loaded (%s).",
                     container_id ?: "?", swap_event_to_string(ev));
}

void lifecycle_report_repairing(SwapMachine *s, const char *container_id, SwapEvent ev) {
        log_info("Putting the in-tree NVMe stack back while driver container %.12s is expected (%s).",
                 container_id ?: "?", swap_event_to_string(ev));
        swap_record_message(s, "repairing: in-tree stack back until the ready file (%s)", swap_event_to_string(ev));
}

void lifecycle_report_earlier_blocked(const SwapMachine *s, const SwapFollow *f, const NodeBlockers *b) {
        _cleanup_free_ char *joined = NULL;

        if (!f->earlier_build || !b || b->n == 0)
                return;
        joined = node_blockers_join(b);
        report_event(LOG_ERR, SWAPGUARD_MESSAGE_EARLIER_BUILD_BLOCKED,
                     &(ReportFields) { .state = swap_state_to_string(s->state), .device = b->items[0].device,
                                       .mount_point = b->items[0].kind && streq(b->items[0].kind, "mounted")
                                                              ? b->items[0].where : NULL,
                                       .pid = b->items[0].pid, .container_id = followed_id(f) },
                     "Cannot take out the NVMe build of %.12s (%s): the new driver container %.12s's openibd restart "
                     "cannot replace it (nvme in use: it leaves nvme and mlx_compat loaded), and a new driver "
                     "version may fail to load, the container restarting, until that use ends.",
                     s->record.build_container_id ?: "the earlier container", joined ?: "in use",
                     followed_id(f) ?: "?");
}

/* ---- a stack broken behind our back ----------------------------------- */

void lifecycle_report_broken(SwapMachine *s, const SwapFollow *f, StackHealth h) {
        _cleanup_free_ char *what = stack_health_describe(h);
        char field[64];
        char *extra[] = { field, NULL };

        snprintf(field, sizeof(field), "SWAPGUARD_BREAK=%s", stack_break_to_string(h.what));
        report_event(LOG_ERR, SWAPGUARD_MESSAGE_STACK_BROKEN,
                     &(ReportFields) { .state = swap_state_to_string(s->state), .module = h.module,
                                       .container_id = followed_id(f), .extra = extra },
                     "The NVMe stack is broken: %s. Putting the in-tree stack back.", what ?: "?");
        swap_record_message(s, "stack broken: %s", what ?: "?");
}

void lifecycle_free(SwapFollow *f, const SwapLoop *loop) {
        pod_end_free(&f->pod_end, loop);
        free(f->env_reported_for);
        f->env_reported_for = NULL;
}
