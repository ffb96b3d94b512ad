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

/* The status document is for people and `oc swapguard status`, never read
 * back on a restart (the state file is): it is written when the loop is
 * otherwise idle, so once after a whole chain of transitions and after the
 * module calls they ran, not before them (a swap used to rewrite it and
 * read the stack for it at every one of some 15 transitions, each time an
 * atomic write with two fsyncs). Written at once without a loop (tests) and
 * when stopping (the loop dispatches nothing after its exit). */
static void schedule_publish(Manager *m) {
        SwapNodeView node = manager_node_view(m);

        if (m->swap.stopping || swap_loop_publish_when_idle(&m->loop) < 0)
                swap_record_publish(&m->swap, &m->publish, m->config->mode, &node);
}

void swap_record_save(Manager *m) {
        const ContainerIdentity *c = m->follow.container.identity;
        int r;

        if (m->swap.record.state != m->swap.state)
                m->swap.record.since_usec = now_realtime_usec();
        m->swap.record.state = m->swap.state;
        m->swap.record.mode = m->config->mode;
        free(m->swap.record.container_id);
        free(m->swap.record.pod_name);
        m->swap.record.container_id = c ? strdup(c->id) : NULL;
        m->swap.record.pod_name = c ? strdup(c->pod_name) : NULL;
        m->swap.record.container_pid = m->follow.container.pid;
        /* At once, whatever the cost: a restart resumes from this file, and
         * what an unload is about to take out must be in it before. */
        r = state_file_write(&m->swap.record);
        if (r < 0)
                log_warning_errno(r, "Cannot write the state file " STATE_FILE ", ignoring: %m");
        if (m->step.open) {
                m->step.saved = true;
                m->step.writes++;
        }
        schedule_publish(m);
}

void swap_record_save_step(Manager *m) {
        if (!m->step.open || !m->step.saved)
                swap_record_save(m);
}

void swap_record_changed(Manager *m) {
        if (!m->step.open)
                swap_record_save(m);
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
