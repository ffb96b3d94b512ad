/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What came of an action (swap-actions.c), as a value: the action changes
 * the node and returns this; the manager notes it in the record and tells
 * it (manager-outcome.c), then asks for what it wants done next. An action
 * neither reports what came of it nor saves: it says only what it is about
 * to do, before doing it (a progress line), and it saves only through the
 * loop's table just before the first module call, so that what goes is on
 * disk before it goes. */

#include <stdbool.h>

#include "node/node-ops.h"
#include "util/macro.h"

typedef enum SwapOutcomeKind {
        SWAP_OUTCOME_NONE,            /* nothing to tell: nothing ran, or the check that stopped it said why */
        SWAP_OUTCOME_BLOCKED,         /* blockers (a refused unload or re-check), build */
        SWAP_OUTCOME_USAGE_UNREAD,    /* error: the re-check could not look, the unload stays blocked */
        SWAP_OUTCOME_WAITING_CAPTURE, /* the unload waits for the NVMe-oF connections' capture */
        SWAP_OUTCOME_UNLOAD_ERROR,    /* error: the unload could not even start (build) */
        SWAP_OUTCOME_UNLOADED,        /* unload: removed, kept (build) */
        SWAP_OUTCOME_WOULD_UNLOAD,    /* observe: unload->removed is what would go (build) */
        SWAP_OUTCOME_LOADED,          /* load, tree */
        SWAP_OUTCOME_WOULD_LOAD,      /* observe: load, tree */
        SWAP_OUTCOME_NO_BUILD,        /* load: its failed module is one the container's tree lacks */
        SWAP_OUTCOME_RESTORED,        /* load: the restore's result (would: only rehearsed) */
} SwapOutcomeKind;

typedef struct SwapOutcome {
        SwapOutcomeKind kind;
        /* Which build the unload took out or found held ("in-tree", ...: a
         * static string), for the journal. */
        const char *build;
        /* Said and noted first, whatever the kind: why the action failed,
         * and the module it failed on (may be NULL). */
        char *failure;
        char *failed_module;
        int error; /* USAGE_UNREAD, UNLOAD_ERROR: negative errno */
        NodeUnloadResult *unload;
        NodeBlockers *blockers; /* a re-check's; else the refused unload's (swap_outcome_blockers()) */
        NodeLoadResult *load;
        char *tree; /* where the load read the container's build */
        /* A connect of the NVMe-oF connections to ask for once told: "after
         * the load", ... (a static string), NULL: none. */
        const char *connect_after;
} SwapOutcome;

/* The blockers to tell: the re-check's, else the refused unload's; NULL:
 * none. */
const NodeBlockers *swap_outcome_blockers(const SwapOutcome *o);
/* The action failed: o->failure formatted, o->failed_module copied; 0, or
 * -ENOMEM (o->failure then says "Out of memory."). */
int swap_outcome_fail(SwapOutcome *o, const char *module, const char *fmt, ...) _printf_(3, 4);
void swap_outcome_done(SwapOutcome *o);
