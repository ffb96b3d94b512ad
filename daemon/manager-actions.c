/* SPDX-License-Identifier: Apache-2.0 */
/* The manager runs an action and tells what came of it (manager-actions.h). */
#include <stdlib.h>
#include <string.h>

#include "manager-actions.h"
#include "publish/log.h"
#include "swap/observe-report.h"
#include "swap/swap-actions.h"
#include "swap/swap-fabrics.h"
#include "swap/swap-lifecycle.h"
#include "swap/swap-metrics.h"
#include "swap/swap-note.h"
#include "swap/swap-report.h"
#include "util/strv.h"
#include "watch/fabrics-watch.h"

#define WAITING_FOR_CAPTURE "waiting for " FABRICS_UNIT ".service to capture the NVMe over Fabrics connections"

static SwapActors actors(Manager *m) {
        return (SwapActors) { .swap = &m->swap, .follow = &m->follow, .config = m->config,
                              .node = manager_node_view(m), .fabrics = &m->fabrics,
                              .pin = m->pin, .usage = m->usage };
}

/* A refused unload: the blockers counted and noted (their processes, for a
 * re-check when one exits), told when they are not those said last, and
 * an earlier container's build named as what they hold. */
static void tell_blockers(Manager *m, const char *build, const NodeBlockers *b) {
        swap_metrics_blockers(&m->publish, b);
        if (swap_note_blockers(&m->swap, m->config->mode, b))
                swap_report_blockers(&m->swap, &m->follow, m->config->mode, build, b);
        lifecycle_report_earlier_blocked(&m->swap, &m->follow, b);
}

/* The unload ran (or would have): what blocked it before is past. */
static void forget_blockers(SwapMachine *s) {
        free(s->last_blockers);
        s->last_blockers = NULL;
}

/* Said once however often the unload is tried while the capture is awaited. */
static void tell_waiting_for_capture(SwapMachine *s) {
        if (s->last_blockers && streq(s->last_blockers, WAITING_FOR_CAPTURE))
                return;
        free(s->last_blockers);
        s->last_blockers = strdup(WAITING_FOR_CAPTURE);
        log_info("Unload of the NVMe stack %s: it drops live connections.", WAITING_FOR_CAPTURE);
}

/* What came of a module action, in the order it happened: why it failed
 * first, then what it did, then what it asks for. */
static void tell(Manager *m, const SwapOutcome *o) {
        if (o->failure) {
                swap_note_failure(&m->swap, "%s", o->failure);
                swap_report_failure(&m->swap, &m->follow, o->failed_module);
        }
        switch (o->kind) {
        case SWAP_OUTCOME_NONE:
                break;
        case SWAP_OUTCOME_BLOCKED:
                tell_blockers(m, o->build, swap_outcome_blockers(o));
                break;
        case SWAP_OUTCOME_USAGE_UNREAD:
                log_warning_errno(o->error, "Cannot check NVMe namespace use, staying blocked: %m");
                break;
        case SWAP_OUTCOME_WAITING_CAPTURE:
                tell_waiting_for_capture(&m->swap);
                break;
        case SWAP_OUTCOME_UNLOAD_ERROR:
                log_error_errno(o->error, "Cannot unload the %s NVMe stack: %m", o->build);
                break;
        case SWAP_OUTCOME_UNLOADED:
                forget_blockers(&m->swap);
                swap_report_unloaded(&m->swap, &m->follow, o->build, o->unload->removed, o->unload->kept);
                swap_note_unloaded(&m->swap, o->unload->removed);
                break;
        case SWAP_OUTCOME_WOULD_UNLOAD:
                forget_blockers(&m->swap);
                observe_report_would_unload(&m->swap, &m->follow, o->build, o->unload->removed);
                break;
        case SWAP_OUTCOME_LOADED:
                swap_note_loaded(&m->swap, o->load);
                swap_report_loaded(o->load, o->tree);
                break;
        case SWAP_OUTCOME_WOULD_LOAD:
                observe_report_would_load(&m->swap, &m->follow, o->load, o->tree);
                break;
        case SWAP_OUTCOME_NO_BUILD:
                lifecycle_load_no_build(&m->swap, &m->follow, o->load->failed_module,
                                        o->load->failed_reason ?: "not in the container's tree");
                break;
        case SWAP_OUTCOME_RESTORED:
                m->swap.restore_rehearsed = o->load->would;
                if (o->load->would) /* observe (node-ops-observe.c) */
                        observe_report_would_restore(&m->swap, &m->follow, o->load);
                break;
        }
        if (o->connect_after)
                swap_fabrics_connect(&m->fabrics, &m->swap, &m->follow, &m->loop, o->connect_after);
}

SwapEvent manager_act(Manager *m, SwapAction a) {
        SwapActors act = actors(m);
        SwapOutcome o;
        SwapEvent ev;

        switch (a) {
        case SWAP_ACTION_REPORT_RELOAD:
                swap_report_reload(&m->swap, &m->follow);
                return _SWAP_EVENT_INVALID;
        case SWAP_ACTION_REPORT_STALE_READY:
                lifecycle_report_stale_ready(&m->swap, &m->follow, m->config);
                return _SWAP_EVENT_INVALID;
        case SWAP_ACTION_UNLOAD:
        case SWAP_ACTION_LOAD:
                m->stack.restore_gave_up = false;
                break;
        default:
                break;
        }
        ev = swap_actions_run(&act, a, &o);
        tell(m, &o);
        swap_outcome_done(&o);
        /* Remembered so that the stack's next settle does not try the same
         * restore again (stack-judge.c). */
        if (a == SWAP_ACTION_RESTORE)
                m->stack.restore_gave_up = ev == SWAP_EVENT_RESTORE_FAILED;
        return ev;
}
