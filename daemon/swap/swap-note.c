/* SPDX-License-Identifier: Apache-2.0 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "publish/log.h"
#include "swap/observe-report.h"
#include "swap/swap-note.h"
#include "swap/swap-record.h"
#include "util/string-util.h"
#include "util/strv.h"

bool swap_note_namespaces(SwapMachine *s, const SwapNodeView *node) {
        NodeNamespaces *now = NULL;
        char **missing = NULL;
        int r;

        if (!s->record.namespaces_before || s->record.namespaces_before->n == 0)
                return false;
        r = node->ops->scan_namespaces(node->ops->userdata, &now);
        if (r >= 0)
                r = node_namespaces_missing(s->record.namespaces_before, now, &missing);
        node_namespaces_free(now);
        if (r < 0) {
                log_warning_errno(r, "Cannot compare the namespaces with those seen before the unload: %m");
                return false;
        }
        strv_free(s->record.missing_namespaces);
        s->record.missing_namespaces = missing;
        return true;
}

/* "nvme: container", "nvme_auth: shared-from-host", one per loaded module
 * of the stack read. */
void swap_note_builds(SwapMachine *s, const NodeStack *stack) {
        char **l = NULL;

        for (size_t i = 0; stack && i < stack->n_modules; i++) {
                const NodeModule *x = &stack->modules[i];

                if (x->origin != NODE_ORIGIN_ABSENT && strv_extendf(&l, "%s: %s", x->name, x->build ?: "unknown") < 0) {
                        strv_free(l);
                        return;
                }
        }
        strv_free(s->record.module_builds);
        s->record.module_builds = l;
}

void swap_note_swapped(SwapMachine *s, const NodeStack *stack, const char *by) {
        swap_note_builds(s, stack);
        swap_record_message(s, "swapped (%s)", by);
}

void swap_note_restored(SwapMachine *s, SwapEvent ev) {
        swap_record_message(s, "restored after %s", swap_restore_why(s, ev));
}

void swap_note_stop_restored(SwapMachine *s) {
        swap_record_message(s, "restored because the daemon stopped");
}

/* The processes named: the exit of any is worth a re-check (pid-exit-watch.h). */
static void note_blocker_pids(SwapMachine *s, const NodeBlockers *b) {
        s->n_blocker_pids = 0;
        for (size_t i = 0; i < b->n && s->n_blocker_pids < ELEMENTSOF(s->blocker_pids); i++)
                if (b->items[i].pid > 0)
                        s->blocker_pids[s->n_blocker_pids++] = b->items[i].pid;
}

bool swap_note_blockers(SwapMachine *s, SwapMode mode, const NodeBlockers *b) {
        char *joined = node_blockers_join(b);

        note_blocker_pids(s, b);
        if (!joined)
                return false;
        if (s->last_blockers && streq(joined, s->last_blockers)) {
                free(joined);
                return false; /* same blockers as last time: said already */
        }
        free(s->last_blockers);
        s->last_blockers = joined;
        strv_free(s->record.blockers);
        s->record.blockers = NULL;
        for (size_t i = 0; i < b->n; i++)
                (void) strv_extend(&s->record.blockers, b->items[i].description ?: "");
        swap_record_message(s, "blocked: %s", joined);
        if (mode == SWAP_MODE_OBSERVE)
                observe_report_would_refuse(s, joined);
        return true;
}

void swap_note_unloaded(SwapMachine *s, char *const *removed) {
        _cleanup_free_ char *list = strv_join(removed, " ");

        swap_record_message(s, "unloaded: %s", list ?: "");
}

void swap_note_loaded(SwapMachine *s, const NodeLoadResult *l) {
        char **from_tree = NULL;

        /* Recorded at load: which modules are this build's, whatever their
         * role (stack, shared like nvme_auth): its unload takes them out. */
        if (l && strv_copy(node_load_result_from_tree(l), &from_tree) >= 0) {
                strv_free(s->record.build_modules);
                s->record.build_modules = from_tree;
        }
}

void swap_note_failurev(SwapMachine *s, const char *fmt, va_list ap) {
        char *why = strdup_vprintf(fmt, ap); /* before the free: an argument may be the old failure */

        free(s->failure);
        s->failure = why;
        swap_record_message(s, "%s", s->failure ?: "failure");
}

void swap_note_failure(SwapMachine *s, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        swap_note_failurev(s, fmt, ap);
        va_end(ap);
}

void swap_note_gave_up(SwapMachine *s, SwapEvent ev) {
        swap_note_failure(s, "Gave up after %s.", swap_event_to_string(ev));
}
