/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The one line systemd shows for a state (STATUS=, `systemctl status`), as
 * a pure function of the state and the facts it names: the core's words for
 * each state, next to the table and the plan (swap-record.c sends it). */

#include <stdbool.h>

#include "vocabulary/swap-vocabulary.h"

typedef struct SwapStatusFacts {
        const char *container_id;  /* the followed or recorded container; NULL: unknown */
        const char *blockers;      /* what blocks the unload, one line; NULL: not said yet */
        bool missing_namespaces;   /* some namespace seen before the swap is not back */
        const char *message;       /* the record's last message */
        const char *failure;       /* why it failed */
        const char *would;         /* observe: what enforce would do */
} SwapStatusFacts;

/* The line (free() it), or NULL when the state has none or without memory. */
char *swap_status_line(SwapState s, const SwapStatusFacts *f);
