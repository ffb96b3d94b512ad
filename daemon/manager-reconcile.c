/* SPDX-License-Identifier: Apache-2.0 */
/* The start-up reconcile (manager-reconcile.h): the state file, the node
 * and the followed container decide the state the daemon resumes in. */
#include <errno.h>
#include <stdlib.h>

#include "manager-dispatch.h"
#include "manager-labels.h"
#include "manager-lifecycle.h"
#include "manager-reconcile.h"
#include "node/node-ops.h"
#include "publish/log.h"
#include "publish/state-file.h"
#include "swap/observe-report.h"
#include "swap/reconcile.h"
#include "swap/swap-context.h"
#include "swap/swap-record.h"
#include "swap/swap-state.h"
#include "util/strv.h"

void manager_reconcile(Manager *m) {
        StateFile *previous = NULL;
        SwapContext ctx;
        ReconcileDecision d;
        bool driverless = false;
        int r;

        r = state_file_read(&previous);
        if (r < 0 && r != -ENOENT)
                log_warning_errno(r, "Ignoring the unreadable state file " STATE_FILE ": %m");
        /* What the previous instance meant to load tells whether a replacement
         * is complete (replacement_complete()); dropped below unless kept. */
        if (previous && previous->modules_before && !m->swap.record.modules_before)
                (void) strv_copy(previous->modules_before, &m->swap.record.modules_before);
        /* Which container the loaded build came from and what it brought are
         * facts about the kernel, kept whatever is decided below; they tell a
         * new container's start over an earlier build from a restart of the
         * daemon, and what that build's unload takes out. */
        state_file_keep_build(&m->swap.record, previous);
        manager_container_followed(m);
        if (manager_read_context(m, &ctx) < 0) {
                /* Cannot see the modules: do nothing rather than guess. */
                m->swap.state = reconcile_blind();
                state_file_free(previous);
                return;
        }
        swap_context_noted(&m->follow, &ctx);
        /* trust: drives left without a driver mean restore, whatever the
         * state file says: a lost or truncated one must not leave the
         * node driverless. */
        if (!ctx.stack_loaded && m->ops->nvme_driverless &&
            (r = m->ops->nvme_driverless(m->ops->userdata, &driverless)) < 0)
                log_warning_errno(r, "Cannot tell whether NVMe controllers lack a driver, ignoring: %m");
        d = reconcile_decide(&(ReconcileInput) {
                .previous = previous,
                .container_id = m->follow.container.identity ? m->follow.container.identity->id : NULL,
                .stack_loaded = ctx.stack_loaded,
                .replacement_loaded = ctx.replacement_loaded,
                .nvme_driverless = driverless,
        });
        m->swap.record.modules_before = strv_free(m->swap.record.modules_before);
        if (d.keep_record && previous) {
                m->swap.record.modules_before = TAKE_PTR(previous->modules_before);
                /* (what the watches' first look set meanwhile, e.g. the
                 * moment's message, gives way to what was recorded) */
                node_namespaces_free(m->swap.record.namespaces_before);
                m->swap.record.namespaces_before = TAKE_PTR(previous->namespaces_before);
                m->swap.record.ready_deadline_usec = previous->ready_deadline_usec;
                free(m->swap.record.message);
                m->swap.record.message = TAKE_PTR(previous->message);
                node_fabrics_free(m->swap.record.fabrics);
                m->swap.record.fabrics = TAKE_PTR(previous->fabrics); /* pending ones: the connect to come */
        }
        log_info("Start: previous state %s, container %.12s, stack %s, ready file %s: resuming in %s%s%s.",
                 previous ? swap_state_to_string(previous->state) : "none",
                 m->follow.container.identity ? m->follow.container.identity->id : "none",
                 ctx.replacement_loaded ? "replaced" : ctx.stack_loaded ? "in-tree" : "absent",
                 m->ready_present ? "present" : "absent", swap_state_to_string(d.state),
                 d.event >= 0 ? " then " : "", d.event >= 0 ? swap_event_to_string(d.event) : "");
        observe_report_start(&m->swap, m->config->mode, previous, d.state);
        /* Resuming in the state the previous instance left: the state has
         * not changed, so neither has the time it was entered (the metrics'
         * state_since and the status document's since survive a restart). */
        if (previous && previous->state == d.state && previous->since_usec > 0) {
                m->swap.record.state = previous->state;
                m->swap.record.since_usec = previous->since_usec;
        }
        state_file_free(previous);
        m->swap.state = d.state;
        m->swap.started = true;
        manager_apply_state(m);
        manager_save(m, SWAP_SAVE_NOW);
        if (d.event >= 0)
                manager_dispatch(m, d.event);
        swap_status_update(&m->swap, &m->follow);
        /* A restart while swapped: the GDS hooks' match as it is now (the
         * node labels' gds-ready, the metrics), not unknown until nvidia_fs
         * next comes or goes. */
        manager_nvfs_changed(m);
        manager_labels_update(m);
}
