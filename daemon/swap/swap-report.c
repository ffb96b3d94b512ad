/* SPDX-License-Identifier: Apache-2.0 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "publish/log.h"
#include "swap/observe-report.h"
#include "publish/report.h"
#include "swap/swap-metrics.h"
#include "swap/swap-record.h"
#include "swap/swap-report.h"
#include "swap/swap-snapshot.h"
#include "util/string-util.h"
#include "util/strv.h"

/* The container a report names: the followed one, else the record's. */
static const char *container_id(const Manager *m) {
        return swap_record_container_id(&m->follow, &m->swap);
}

void swap_report_namespaces(Manager *m, const char *message_id, const char *what) {
        NodeNamespaces *now = NULL;
        char **missing = NULL;
        int r;

        if (!m->swap.record.namespaces_before || m->swap.record.namespaces_before->n == 0)
                return;
        r = m->ops->scan_namespaces(m->ops->userdata, &now);
        if (r >= 0)
                r = node_namespaces_missing(m->swap.record.namespaces_before, now, &missing);
        node_namespaces_free(now);
        if (r < 0) {
                log_warning_errno(r, "Cannot compare the namespaces with those seen before the unload: %m");
                return;
        }
        strv_free(m->swap.record.missing_namespaces);
        m->swap.record.missing_namespaces = missing;
        if (!missing) {
                report_event(LOG_INFO, message_id,
                             &(ReportFields) { .state = swap_state_to_string(m->swap.state),
                                               .container_id = container_id(m) },
                             "%s: all %zu NVMe namespaces seen before the unload are back.", what,
                             m->swap.record.namespaces_before->n);
                return;
        }
        for (char **i = missing; *i; i++)
                report_event(LOG_WARNING, message_id,
                             &(ReportFields) { .state = swap_state_to_string(m->swap.state), .device = *i,
                                               .container_id = container_id(m) },
                             "%s: NVMe namespace %s seen before the unload is not back (yet).", what, *i);
}

/* The state file's module_builds: "nvme: container", "nvme_auth:
 * shared-from-host", one per loaded module of the stack read. */
static void swap_record_builds(Manager *m, const NodeStack *stack) {
        char **l = NULL;

        for (size_t i = 0; stack && i < stack->n_modules; i++) {
                const NodeModule *x = &stack->modules[i];

                if (x->origin != NODE_ORIGIN_ABSENT && strv_extendf(&l, "%s: %s", x->name, x->build ?: "unknown") < 0) {
                        strv_free(l);
                        return;
                }
        }
        strv_free(m->swap.record.module_builds);
        m->swap.record.module_builds = l;
}

void swap_report_builds(Manager *m) {
        const NodeStack *stack = NULL;

        if (swap_snapshot_stack(&m->step, m->ops, &m->loop, &stack) < 0)
                return;
        swap_record_builds(m, stack);
}

void swap_report_swapped(Manager *m, const char *by) {
        const NodeStack *stack = NULL;
        int r;

        r = swap_snapshot_stack_hooks(&m->step, m->ops, &m->loop, &stack); /* it reports the GDS hooks */
        if (r < 0) {
                log_warning_errno(r, "Cannot read the module stack for the swap report: %m");
                return;
        }
        for (size_t i = 0; i < stack->n_modules; i++) {
                const NodeModule *x = &stack->modules[i];
                _cleanup_free_ char *build = NULL;
                char *extra[] = { (char *) (x->gds_hooks ? "SWAPGUARD_GDS_HOOKS=yes" : "SWAPGUARD_GDS_HOOKS=no"),
                                  NULL, NULL };

                if (x->origin == NODE_ORIGIN_ABSENT)
                        continue;
                if (asprintf(&build, "SWAPGUARD_BUILD=%s", x->build ?: "unknown") < 0)
                        build = NULL;
                extra[1] = build;
                report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_SWAPPED,
                             &(ReportFields) { .state = "swapped", .module = x->name,
                                               .origin = node_origin_to_string(x->origin),
                                               .container_id = container_id(m),
                                               .pid = m->follow.container.pid, .extra = extra },
                             "Swapped (%s): module %s is the %s build, GDS hooks %s%s.", by, x->name,
                             node_origin_to_string(x->origin), x->gds_hooks ? "present" : "absent",
                             x->build && streq(x->build, "shared-from-host")
                                     ? "; the host's own, shared: NVIDIA's build links it"
                                     : "");
        }
        swap_record_builds(m, stack);
        swap_record_message(&m->swap, "swapped (%s)", by);
        swap_report_namespaces(m, SWAPGUARD_MESSAGE_NAMESPACES_BACK, "After the swap");
}

static void report_blocker(Manager *m, const char *build, const NodeBlocker *x) {
        const bool observe = m->config->mode == SWAP_MODE_OBSERVE;
        char *extra[] = { NULL, NULL };
        char *kind = NULL;

        if (asprintf(&kind, "SWAPGUARD_USAGE=%s", x->kind ?: "unknown") >= 0)
                extra[0] = kind;
        else
                kind = NULL;
        report_event(LOG_WARNING, observe ? SWAPGUARD_MESSAGE_WOULD_REFUSE : SWAPGUARD_MESSAGE_BLOCKED,
                     &(ReportFields) { .state = "blocked", .device = x->device,
                                       .mount_point = x->kind && streq(x->kind, "mounted") ? x->where : NULL,
                                       .pid = x->pid, .container_id = container_id(m),
                                       .extra = extra },
                     "%s the %s NVMe stack: %s.", observe ? "Observe: would refuse to unload" : "Blocked: not unloading",
                     build, x->description ?: "in use");
        free(kind);
}

/* The processes named: the exit of any is worth a re-check (pid-exit-watch.h). */
static void remember_blocker_pids(Manager *m, const NodeBlockers *b) {
        m->swap.n_blocker_pids = 0;
        for (size_t i = 0; i < b->n && m->swap.n_blocker_pids < ELEMENTSOF(m->swap.blocker_pids); i++)
                if (b->items[i].pid > 0)
                        m->swap.blocker_pids[m->swap.n_blocker_pids++] = b->items[i].pid;
}

void swap_report_blockers(Manager *m, const char *build, const NodeBlockers *b) {
        char *joined = node_blockers_join(b);

        swap_metrics_blockers(&m->publish, b);
        remember_blocker_pids(m, b);
        if (!joined)
                return;
        if (m->swap.last_blockers && streq(joined, m->swap.last_blockers)) {
                free(joined);
                return; /* same blockers as last time: said already */
        }
        free(m->swap.last_blockers);
        m->swap.last_blockers = joined;
        strv_free(m->swap.record.blockers);
        m->swap.record.blockers = NULL;
        for (size_t i = 0; i < b->n; i++) {
                (void) strv_extend(&m->swap.record.blockers, b->items[i].description ?: "");
                report_blocker(m, build, &b->items[i]);
        }
        swap_record_message(&m->swap, "blocked: %s", joined);
        if (m->config->mode == SWAP_MODE_OBSERVE)
                observe_report_would_refuse(&m->swap, joined);
}

void swap_report_unloaded(Manager *m, const char *build, char *const *removed, char *const *kept) {
        _cleanup_free_ char *list = strv_join(removed, " ");

        STRV_FOREACH(k, kept)
                report_event(LOG_WARNING, SWAPGUARD_MESSAGE_UNLOADED,
                             &(ReportFields) { .state = "unloaded-waiting-driver",
                                               .container_id = container_id(m) },
                             "A shared module of the %s NVMe stack stays loaded: %s. While it holds mlx_compat, "
                             "a driver container's openibd restart cannot remove that.",
                             build, *k);

        report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_UNLOADED,
                     &(ReportFields) { .state = "unloaded-waiting-driver", .module = list,
                                       .container_id = container_id(m), .pid = m->follow.container.pid },
                     "Unloaded the %s NVMe stack (%s) for driver container %.12s.", build,
                     list && *list ? list : "nothing was loaded", container_id(m) ?: "?");
        swap_record_message(&m->swap, "unloaded: %s", list ?: "");
}

void swap_report_reload(Manager *m) {
        report_event(LOG_WARNING, SWAPGUARD_MESSAGE_RELOAD_DETECTED,
                     &(ReportFields) { .state = swap_state_to_string(m->swap.state), .origin = "in-tree",
                                       .container_id = container_id(m) },
                     "The in-tree NVMe stack was loaded again while it was meant to stay unloaded; "
                     "will swap when the driver is ready.");
}

void swap_report_failure(Manager *m, const char *module, const char *fmt, ...) {
        va_list ap;
        char *s;

        va_start(ap, fmt);
        s = strdup_vprintf(fmt, ap); /* before the free: an argument may be the old failure */
        va_end(ap);
        free(m->swap.failure);
        m->swap.failure = s;
        report_event(LOG_ERR, SWAPGUARD_MESSAGE_FAILED,
                     &(ReportFields) { .state = swap_state_to_string(m->swap.state), .module = module,
                                       .container_id = container_id(m), .pid = m->follow.container.pid },
                     "%s", m->swap.failure ?: "failure");
        swap_record_message(&m->swap, "%s", m->swap.failure ?: "failure");
}

void swap_report_container_seen(Manager *m) {
        const ContainerIdentity *c = m->follow.container.identity;

        report_event(LOG_INFO, SWAPGUARD_MESSAGE_CONTAINER_SEEN,
                     &(ReportFields) { .state = "container-seen", .container_id = container_id(m),
                                       .pod = c ? c->pod_name : NULL, .pid = m->follow.container.pid },
                     "Driver container %.12s (pod %s) is running.", container_id(m) ?: "?",
                     c ? c->pod_name : "?");
}

void swap_report_restored(Manager *m, SwapEvent ev) {
        /* ev is restore-done; the reason is what started the restore. */
        const char *why = swap_event_to_string(m->swap.restore_cause) ?: swap_event_to_string(ev);

        if (m->swap.restore_rehearsed)
                return; /* observe: "would restore" said it (observe-report.c) */
        report_event(LOG_WARNING, SWAPGUARD_MESSAGE_RESTORED,
                     &(ReportFields) { .state = "restored", .origin = "in-tree",
                                       .container_id = container_id(m) ?: m->swap.restore_container },
                     "Restored the in-tree NVMe stack (%s).", why);
        swap_record_message(&m->swap, "restored after %s", why);
        swap_report_builds(m);
        swap_report_namespaces(m, SWAPGUARD_MESSAGE_NAMESPACES_BACK, "After the restore");
}

/* A stop while the stack was unloaded restored it (or failed to): the next
 * start swaps again, so the record keeps what it knows of this swap. */
void swap_report_stop_restored(SwapMachine *s, const char *container_id, bool restored) {
        report_event(restored ? LOG_NOTICE : LOG_ERR, SWAPGUARD_MESSAGE_STOP_RESTORED,
                     &(ReportFields) { .state = swap_state_to_string(s->state), .origin = "in-tree",
                                       .container_id = container_id },
                     "Stopping while the in-tree NVMe stack was unloaded: %s.",
                     restored ? "restored it; the next start swaps again" : "restoring it failed");
        if (restored)
                swap_record_message(s, "restored because the daemon stopped");
}

void swap_report_transition(SwapState old, SwapState now, SwapEvent ev) {
        if (now == old)
                return;
        log_info("State %s -> %s (%s).", swap_state_to_string(old), swap_state_to_string(now),
                 swap_event_to_string(ev));
}

void swap_report_gave_up(Manager *m, SwapEvent ev) {
        swap_report_failure(m, NULL, "Gave up after %s.", swap_event_to_string(ev));
}

/* "nvme_core nvme", or NULL for none (or no memory: the caller says "none"). */
static char *join_or_null(char *const *l) {
        return l && l[0] ? strv_join(l, " ") : NULL;
}

char *swap_load_describe(const NodeLoadResult *l, const char *tree) {
        _cleanup_free_ char *ours = NULL, *host = NULL, *already = NULL, *replaced = NULL, *kept = NULL;
        char *s = NULL;

        if (!l)
                return NULL;
        /* An ops table that does not sort what it loaded (tests' fakes):
         * everything it names came from the tree asked for. */
        ours = join_or_null(l->from_tree || l->from_host || l->already ? l->from_tree : l->loaded);
        host = join_or_null(l->from_host);
        already = join_or_null(l->already);
        replaced = join_or_null(l->replaced);
        kept = l->kept && l->kept[0] ? strv_join(l->kept, "; ") : NULL;
        if (asprintf(&s, "Loaded %s from the driver container's tree %s%s%s%s%s%s%s%s%s.", ours ?: "nothing",
                     tree ?: "?", host ? "; from the host's tree (not stack modules): " : "", host ?: "",
                     already ? "; already loaded, left as they were: " : "", already ?: "",
                     replaced ? "; the host's shared module(s) replaced by the container's: " : "", replaced ?: "",
                     kept ? "; " : "", kept ?: "") < 0)
                return NULL;
        return s;
}

void swap_report_loaded(Manager *m, const NodeLoadResult *l, const char *tree) {
        _cleanup_free_ char *s = swap_load_describe(l, tree);
        char **from_tree = NULL;

        /* Recorded at load: which modules are this build's, whatever their
         * role (stack, shared like nvme_auth): its unload takes them out. */
        if (l && strv_copy(l->from_tree || l->from_host || l->already ? l->from_tree : l->loaded, &from_tree) >= 0) {
                strv_free(m->swap.record.build_modules);
                m->swap.record.build_modules = from_tree;
        }

        log_info("%s", s ?: "Loaded the stack from the driver container's tree.");
}
