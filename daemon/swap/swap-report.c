/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "publish/log.h"
#include "publish/report.h"
#include "swap/swap-record.h"
#include "swap/swap-report.h"
#include "util/string-util.h"
#include "util/strv.h"

/* The container a report names: the followed one, else the record's. */
static const char *container_id(const SwapMachine *s, const SwapFollow *f) {
        return swap_record_container_id(f, s);
}

void swap_report_namespaces(const SwapMachine *s, const SwapFollow *f, const char *message_id, const char *what) {
        char *const *missing = s->record.missing_namespaces;

        if (!s->record.namespaces_before || s->record.namespaces_before->n == 0)
                return;
        if (!missing) {
                report_event(LOG_INFO, message_id,
                             &(ReportFields) { .state = swap_state_to_string(s->state),
                                               .container_id = container_id(s, f) },
                             "%s: all %zu NVMe namespaces seen before the unload are back.", what,
                             s->record.namespaces_before->n);
                return;
        }
        for (char *const *i = missing; *i; i++)
                report_event(LOG_WARNING, message_id,
                             &(ReportFields) { .state = swap_state_to_string(s->state), .device = *i,
                                               .container_id = container_id(s, f) },
                             "%s: NVMe namespace %s seen before the unload is not back (yet).", what, *i);
}

void swap_report_swapped(const SwapMachine *s, const SwapFollow *f, const NodeStack *stack, const char *by) {
        for (size_t i = 0; stack && i < stack->n_modules; i++) {
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
                                               .container_id = container_id(s, f),
                                               .pid = f->container.pid, .extra = extra },
                             "Swapped (%s): module %s is the %s build, GDS hooks %s%s.", by, x->name,
                             node_origin_to_string(x->origin), x->gds_hooks ? "present" : "absent",
                             x->build && streq(x->build, "shared-from-host")
                                     ? "; the host's own, shared: NVIDIA's build links it"
                                     : "");
        }
}

static void report_blocker(const SwapMachine *s, const SwapFollow *f, SwapMode mode, const char *build,
                           const NodeBlocker *x) {
        const bool observe = mode == SWAP_MODE_OBSERVE;
        char *extra[] = { NULL, NULL };
        char *kind = NULL;

        if (asprintf(&kind, "SWAPGUARD_USAGE=%s", x->kind ?: "unknown") >= 0)
                extra[0] = kind;
        else
                kind = NULL;
        report_event(LOG_WARNING, observe ? SWAPGUARD_MESSAGE_WOULD_REFUSE : SWAPGUARD_MESSAGE_BLOCKED,
                     &(ReportFields) { .state = "blocked", .device = x->device,
                                       .mount_point = x->kind && streq(x->kind, "mounted") ? x->where : NULL,
                                       .pid = x->pid, .container_id = container_id(s, f),
                                       .extra = extra },
                     "%s the %s NVMe stack: %s.", observe ? "Observe: would refuse to unload" : "Blocked: not unloading",
                     build, x->description ?: "in use");
        free(kind);
}

void swap_report_blockers(const SwapMachine *s, const SwapFollow *f, SwapMode mode, const char *build,
                          const NodeBlockers *b) {
        for (size_t i = 0; i < b->n; i++)
                report_blocker(s, f, mode, build, &b->items[i]);
}

void swap_report_unloaded(const SwapMachine *s, const SwapFollow *f, const char *build, char *const *removed,
                          char *const *kept) {
        _cleanup_free_ char *list = strv_join(removed, " ");

        STRV_FOREACH(k, kept)
                report_event(LOG_WARNING, SWAPGUARD_MESSAGE_UNLOADED,
                             &(ReportFields) { .state = "unloaded-waiting-driver",
                                               .container_id = container_id(s, f) },
                             "A shared module of the %s NVMe stack stays loaded: %s. While it holds mlx_compat, "
                             "a driver container's openibd restart cannot remove that.",
                             build, *k);

        report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_UNLOADED,
                     &(ReportFields) { .state = "unloaded-waiting-driver", .module = list,
                                       .container_id = container_id(s, f), .pid = f->container.pid },
                     "Unloaded the %s NVMe stack (%s) for driver container %.12s.", build,
                     list && *list ? list : "nothing was loaded", container_id(s, f) ?: "?");
}

void swap_report_reload(const SwapMachine *s, const SwapFollow *f) {
        report_event(LOG_WARNING, SWAPGUARD_MESSAGE_RELOAD_DETECTED,
                     &(ReportFields) { .state = swap_state_to_string(s->state), .origin = "in-tree",
                                       .container_id = container_id(s, f) },
                     "The in-tree NVMe stack was loaded again while it was meant to stay unloaded; "
                     "will swap when the driver is ready.");
}

void swap_report_failure(const SwapMachine *s, const SwapFollow *f, const char *module) {
        report_event(LOG_ERR, SWAPGUARD_MESSAGE_FAILED,
                     &(ReportFields) { .state = swap_state_to_string(s->state), .module = module,
                                       .container_id = container_id(s, f), .pid = f->container.pid },
                     "%s", s->failure ?: "failure");
}

void swap_report_container_seen(const SwapMachine *s, const SwapFollow *f) {
        const ContainerIdentity *c = f->container.identity;

        report_event(LOG_INFO, SWAPGUARD_MESSAGE_CONTAINER_SEEN,
                     &(ReportFields) { .state = "container-seen", .container_id = container_id(s, f),
                                       .pod = c ? c->pod_name : NULL, .pid = f->container.pid },
                     "Driver container %.12s (pod %s) is running.", container_id(s, f) ?: "?",
                     c ? c->pod_name : "?");
}

void swap_report_restored(const SwapMachine *s, const SwapFollow *f, SwapEvent ev) {
        /* ev is restore-done; the reason is what started the restore. */
        const char *why = swap_restore_why(s, ev);

        report_event(LOG_WARNING, SWAPGUARD_MESSAGE_RESTORED,
                     &(ReportFields) { .state = "restored", .origin = "in-tree",
                                       .container_id = container_id(s, f) ?: s->restore_container },
                     "Restored the in-tree NVMe stack (%s).", why);
}

void swap_report_stop_restored(const SwapMachine *s, const char *container_id, bool restored) {
        report_event(restored ? LOG_NOTICE : LOG_ERR, SWAPGUARD_MESSAGE_STOP_RESTORED,
                     &(ReportFields) { .state = swap_state_to_string(s->state), .origin = "in-tree",
                                       .container_id = container_id },
                     "Stopping while the in-tree NVMe stack was unloaded: %s.",
                     restored ? "restored it; the next start swaps again" : "restoring it failed");
}

void swap_report_transition(SwapState old, SwapState now, SwapEvent ev) {
        if (now == old)
                return;
        log_info("State %s -> %s (%s).", swap_state_to_string(old), swap_state_to_string(now),
                 swap_event_to_string(ev));
}

void swap_report_gave_up(const SwapMachine *s, const SwapFollow *f) {
        swap_report_failure(s, f, NULL);
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
        ours = join_or_null(node_load_result_from_tree(l));
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

void swap_report_loaded(const NodeLoadResult *l, const char *tree) {
        _cleanup_free_ char *s = swap_load_describe(l, tree);

        log_info("%s", s ?: "Loaded the stack from the driver container's tree.");
}
