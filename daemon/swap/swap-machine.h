/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The state machine's own data: the state it is in, the record that the
 * state file persists, and what the state's reports need to say why
 * (the failure, the blockers, what sent it to restoring). Written by the
 * dispatch loop (manager-dispatch.c), the actions (swap-actions.c) and the
 * record (swap-record.c); read by the reports and the context. Freed
 * with the manager (manager_free()). */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "publish/state-file.h"
#include "swap/swap-state.h"

/* The blockers' processes followed at most (the mount watch follows as
 * many: manager-dispatch.c checks that it can). */
#define SWAP_BLOCKER_PIDS_MAX 16

typedef struct SwapMachine {
        SwapState state;
        StateFile record;            /* what the state file says; state mirrors .state */
        bool started;                /* first reconcile done: events now drive the machine */
        bool stopping;
        char *failure;               /* why we are FAILED, for the report */
        char *last_blockers;         /* to report a block once, not on every re-check */
        pid_t blocker_pids[SWAP_BLOCKER_PIDS_MAX]; /* processes the blockers named (a mount in their
                                                     mount namespace, a device open): the mount
                                                     watch follows their exit, since no mount-table
                                                     event tells when their namespace goes */
        size_t n_blocker_pids;
        SwapEvent restore_cause;     /* what sent us to restoring: the "why" of the report */
        char *restore_container;     /* the container it was for (often gone by then) */
        bool restore_rehearsed;      /* observe: the last restore was only reported */
} SwapMachine;
