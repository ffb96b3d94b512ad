/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The swap's timers and the status document's idle write (the table the
 * swap sees: swap/swap-loop.h), owned by the manager: each timer's event
 * source is made at its first arm and kept, re-armed in place; its handler
 * calls the swap's function for it and dispatches what that returns. */

#include "manager-data.h"

/* Fills m->loop for m->event. */
void manager_timers_init(Manager *m);
/* Frees the sources; m->loop stays valid and arms nothing from here on. */
void manager_timers_free(Manager *m);
