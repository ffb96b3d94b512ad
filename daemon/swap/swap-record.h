/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the swap knows about itself and keeps: the record written to the
 * state file (state, container, what was loaded before the unload, the
 * namespaces seen then, the ready deadline, the last message) and the
 * one-line STATUS= that systemctl status shows. */

#include <stdbool.h>
#include <stdint.h>

#include "swap/swap-follow.h"
#include "swap/swap-loop.h"
#include "swap/swap-machine.h"
#include "swap/swap-publish.h"
#include "swap/swap-snapshot.h"
#include "swap/swap-step.h"
#include "util/macro.h"
#include "vocabulary/swap-vocabulary.h"

/* CLOCK_REALTIME in µs: the clock of the state file's timestamps. */
uint64_t now_realtime_usec(void);

/* The id of the followed container, else the one the record names. */
const char *swap_record_container_id(const SwapFollow *f, const SwapMachine *s);

/* The last report, one line, for the state file. */
void swap_record_message(SwapMachine *s, const char *fmt, ...) _printf_(2, 3);
/* No longer blocked: forget the blockers (and that they were reported). */
void swap_record_forget_blockers(SwapMachine *s);
/* What sent us to restoring (the step's plan decides it), and the container
 * it was for (often gone by the time restored is said). */
void swap_record_restore_noted(SwapMachine *s, const char *container_id, SwapEvent cause);
/* Why the restore that ended with ev (restore-done) ran: what started it,
 * else ev. The report and the record's message say the same. */
const char *swap_restore_why(const SwapMachine *s, SwapEvent ev);
/* Back to idle: forget the failure and what the last swap took away. */
void swap_record_forget_swap(SwapMachine *s);

/* The state file's one writer (swap-step.h): the record, from the current
 * state and container, written now; an open step is marked saved. When it
 * runs is the manager's (manager_save(), which then asks for the status
 * document once the loop is idle): a file of swap/ asks for a save through
 * the loop's table (swap_loop_save(), swap-loop.h). */
void swap_record_save(SwapMachine *s, const SwapFollow *f, SwapMode mode, SwapStep *step);
/* Whether a save asked for as `how` writes now:
 *   SWAP_SAVE_NOW      outside a dispatch step (the start's reconcile, the
 *                      stop): yes;
 *   SWAP_SAVE_STEP     the step's one save: yes, unless this step saved; an
 *                      action asks just before it changes the node,
 *                      manager_dispatch() at the step's end;
 *   SWAP_SAVE_CHANGED  news for the record: the open step saves it (or the
 *                      next one, once this one saved); outside a step, yes. */
bool swap_record_save_due(const SwapStep *step, SwapSave how);
/* The status document and the metrics file, written now (the loop calls
 * it once idle after a save asked for it). */
void swap_record_publish(const SwapMachine *s, SwapPublish *p, SwapMode mode, const SwapNodeView *node);
/* STATUS= for the current state. */
void swap_status_update(const SwapMachine *s, const SwapFollow *f);
