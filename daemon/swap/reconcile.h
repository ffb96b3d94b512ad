/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* At start: where are we? Decided from what is true now (modules, the
 * driver container, the ready file) and from the state file the previous
 * instance left, so that a restart at any point (even a SIGKILL in the
 * middle of a swap) resumes correctly. Pure. */

#include <stdbool.h>

#include "publish/state-file.h"
#include "swap/swap-state.h"

typedef struct ReconcileInput {
        const StateFile *previous;   /* NULL: no (readable) state file */
        const char *container_id;    /* the running driver container, NULL when none */
        bool stack_loaded;
        bool replacement_loaded;
        bool nvme_driverless;        /* NVMe controllers with no driver bound (nvme-unbound.h) */
} ReconcileInput;

typedef struct ReconcileDecision {
        SwapState state;             /* where to start */
        SwapEvent event;             /* then feed this event, _SWAP_EVENT_INVALID for none */
        bool keep_record;            /* the previous modules/namespaces before still apply */
} ReconcileDecision;

ReconcileDecision reconcile_decide(const ReconcileInput *in);
/* Where to start when the modules cannot be seen at all: failed, doing
 * nothing rather than guessing. */
SwapState reconcile_blind(void);
