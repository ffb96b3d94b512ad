/* SPDX-License-Identifier: Apache-2.0 */
#include "swap/reconcile.h"
#include "util/macro.h"

#define D(s, e, k) ((ReconcileDecision) { .state = (s), .event = (e), .keep_record = (k) })

/* Did the previous instance take the in-tree stack away (or start to)? */
static bool we_unloaded(const StateFile *p) {
        if (!p)
                return false;
        return swap_state_is_unloaded(p->state) || p->state == SWAP_STATE_RESTORING ||
               p->state == SWAP_STATE_REPAIRING ||
               ((p->state == SWAP_STATE_CONTAINER_SEEN || p->state == SWAP_STATE_BLOCKED) && p->modules_before);
}

static ReconcileDecision no_container(const ReconcileInput *in) {
        const StateFile *p = in->previous;

        if (!in->stack_loaded && (we_unloaded(p) || (p && p->state == SWAP_STATE_FAILED)))
                /* We left the node without its driver and the container is gone: restore. */
                return D(SWAP_STATE_UNLOADED_WAITING_DRIVER, SWAP_EVENT_CONTAINER_EXITED, true);
        if (!in->stack_loaded && in->nvme_driverless)
                /* The node's drives have no driver and no container is coming
                 * to give one: restore, whatever the state file says (a
                 * truncated or lost one must not leave the node driverless). */
                return D(SWAP_STATE_UNLOADED_WAITING_DRIVER, SWAP_EVENT_CONTAINER_EXITED, p != NULL);
        if (p && p->state == SWAP_STATE_LOADING && !in->replacement_loaded)
                /* We died half-way through loading the container's build and the
                 * container is gone: the restore takes out what was loaded of it
                 * and puts the in-tree stack back (tests/faults, row
                 * vanish:during-load). */
                return D(SWAP_STATE_UNLOADED_WAITING_DRIVER, SWAP_EVENT_CONTAINER_EXITED, true);
        if (in->replacement_loaded)
                return D(SWAP_STATE_SWAPPED, _SWAP_EVENT_INVALID, p != NULL);
        return D(SWAP_STATE_IDLE, _SWAP_EVENT_INVALID, false);
}

ReconcileDecision reconcile_decide(const ReconcileInput *in) {
        const StateFile *p = in->previous;
        bool same;

        if (!in->container_id)
                return no_container(in);

        same = p && p->container_id && streq(p->container_id, in->container_id);
        if (same) {
                /* We gave up on this container already: do not loop. */
                if ((p->state == SWAP_STATE_RESTORED || p->state == SWAP_STATE_FAILED ||
                     p->state == SWAP_STATE_NO_BUILD) && in->stack_loaded &&
                    !in->replacement_loaded)
                        return D(p->state, _SWAP_EVENT_INVALID, true);
                if (p->state == SWAP_STATE_SWAPPED && in->replacement_loaded)
                        return D(SWAP_STATE_SWAPPED, _SWAP_EVENT_INVALID, true);
                if (p->state == SWAP_STATE_BLOCKED && in->stack_loaded && !in->replacement_loaded)
                        return D(SWAP_STATE_BLOCKED, SWAP_EVENT_USAGE_CHANGED, true);
        }
        /* Otherwise replay the container's start against what is loaded now:
         * in-tree loaded -> unload (or wait), nothing loaded -> wait for ready
         * or load, replacement loaded -> swapped. Keep what the previous
         * instance recorded about the node when the stack is gone, since
         * that is what a restore must put back. */
        return D(SWAP_STATE_IDLE, SWAP_EVENT_CONTAINER_STARTED, same || (!in->stack_loaded && we_unloaded(p)));
}

SwapState reconcile_blind(void) {
        return SWAP_STATE_FAILED;
}
