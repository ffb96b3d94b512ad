/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "publish/log.h"
#include "publish/report.h"
#include "publish/status-document.h"
#include "swap/swap-metrics.h"
#include "swap/swap-record.h"
#include "swap/swap-snapshot.h"
#include "swap/swap-status.h"
#include "util/alloc-util.h"
#include "util/string-util.h"
#include "util/strv.h"

uint64_t now_realtime_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

const char *swap_record_container_id(const SwapFollow *f, const SwapMachine *s) {
        return f->container.identity ? f->container.identity->id : s->record.container_id;
}

void swap_record_message(SwapMachine *s, const char *fmt, ...) {
        char *text;
        va_list ap;

        va_start(ap, fmt);
        text = strdup_vprintf(fmt, ap);
        va_end(ap);
        if (text) {
                free(s->record.message);
                s->record.message = text;
        }
}

void swap_record_forget_blockers(SwapMachine *s) {
        free(s->last_blockers);
        s->last_blockers = NULL;
        s->n_blocker_pids = 0;
        strv_free(s->record.blockers);
        s->record.blockers = NULL;
}

void swap_record_restore_noted(SwapMachine *s, const char *container_id, SwapEvent cause) {
        s->restore_cause = cause;
        /* Not saved yet: the record still names the container. */
        free(s->restore_container);
        s->restore_container = container_id ? strdup(container_id) : NULL;
}

const char *swap_restore_why(const SwapMachine *s, SwapEvent ev) {
        return swap_event_to_string(s->restore_cause) ?: swap_event_to_string(ev);
}

void swap_record_forget_swap(SwapMachine *s) {
        free(s->failure);
        s->failure = NULL;
        strv_free(s->record.modules_before);
        s->record.modules_before = NULL;
        s->record.namespaces_before = node_namespaces_free(s->record.namespaces_before);
        free(s->record.would);
        s->record.would = NULL;
}

/* The status document next to the state file (status-document.h): the same
 * record plus the modules as they are now, for `oc swapguard status`. No
 * /var/log at all (a fake root) is not worth a warning on every step. */
void swap_record_publish(const SwapMachine *s, SwapPublish *p, SwapMode mode, const SwapNodeView *node) {
        const NodeStack *stack = NULL;
        int r;

        if (swap_snapshot_stack_hooks(node->step, node->ops, node->loop, &stack) < 0)
                stack = NULL; /* written as live build "unknown" */
        r = status_document_publish(&s->record, stack);
        swap_metrics_publish(p, s, mode, node, stack); /* the same moments, the same stack */
        if (r == -ENOENT)
                log_debug_errno(r, "No /var/log: not writing " STATUS_DOCUMENT_FILE ".");
        else if (r < 0)
                log_warning_errno(r, "Cannot write the status document " STATUS_DOCUMENT_FILE ", ignoring: %m");
}

void swap_record_save(SwapMachine *s, const SwapFollow *f, SwapMode mode, SwapStep *step) {
        const ContainerIdentity *c = f->container.identity;
        int r;

        if (s->record.state != s->state)
                s->record.since_usec = now_realtime_usec();
        s->record.state = s->state;
        s->record.mode = mode;
        free(s->record.container_id);
        free(s->record.pod_name);
        s->record.container_id = c ? strdup(c->id) : NULL;
        s->record.pod_name = c ? strdup(c->pod_name) : NULL;
        s->record.container_pid = f->container.pid;
        /* At once, whatever the cost: a restart resumes from this file, and
         * what an unload is about to take out must be in it before. */
        r = state_file_write(&s->record);
        if (r < 0)
                log_warning_errno(r, "Cannot write the state file " STATE_FILE ", ignoring: %m");
        if (step->open) {
                step->saved = true;
                step->writes++;
        }
}

bool swap_record_save_due(const SwapStep *step, SwapSave how) {
        switch (how) {
        case SWAP_SAVE_STEP:
                return !step->open || !step->saved;
        case SWAP_SAVE_CHANGED:
                return !step->open;
        case SWAP_SAVE_NOW:
        default:
                return true;
        }
}

void swap_status_update(const SwapMachine *s, const SwapFollow *f) {
        _cleanup_free_ char *line = swap_status_line(
                s->state, &(SwapStatusFacts) { .container_id = swap_record_container_id(f, s),
                                               .blockers = s->last_blockers,
                                               .missing_namespaces = s->record.missing_namespaces,
                                               .message = s->record.message,
                                               .failure = s->failure,
                                               .would = s->record.would });

        if (line)
                report_status("%s", line);
}
