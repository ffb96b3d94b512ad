/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* One step of the swap: snapshot -> plan -> tell -> save -> act.
 *
 * manager_dispatch() runs a step for each transition of a chain: the node
 * is read once into the step's snapshot (swap-snapshot.h), the table plans
 * (swap-state.h), the entry is told, the record is saved once, the action
 * runs and its outcome is the next step's event. The state file is written
 * once per step (swap-record.c, the one writer): just before the action
 * changes the node (so a restart knows what it was about to do), or at the
 * step's end when the action changes nothing. What changes the record
 * after that save is the next step's to write (or, when the chain ends
 * there, written once after its last step: manager_dispatch()).
 *
 * A handler that is not a transition (the pin's refresh, an NVMe-oF
 * answer, nvidia_fs's arrival) is a step of its own: it saves once. */

#include <stdbool.h>
#include <stdint.h>

typedef struct SwapSnapshot {
        struct NodeStack *stack; /* NULL: not read, or the read failed */
        int error;               /* the read's -errno when it failed */
        bool read;               /* read for this step (or this event of the loop) */
        bool hooks;              /* ... with the GDS hooks */
        uint64_t event;          /* the loop's event it was read in; 0: in a dispatch step */
} SwapSnapshot;

typedef struct SwapStep {
        bool open;               /* manager_dispatch() is inside a step */
        bool saved;              /* the state file was written in this step */
        SwapSnapshot snapshot;
        /* This step's counts: the debug line at its end, and what the
         * scripted test (tests/unit/daemon/test-swap-step.c) checks by its own
         * means. */
        unsigned reads;          /* stack reads for the snapshot */
        unsigned hooks_reads;    /* /proc/kallsyms reads added to it */
        unsigned rechecks;       /* an action's own re-checks (fresh reads) */
        unsigned writes;         /* state file writes */
} SwapStep;
