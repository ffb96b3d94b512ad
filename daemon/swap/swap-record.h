/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the swap knows about itself and keeps: the record written to the
 * state file (state, container, what was loaded before the unload, the
 * namespaces seen then, the ready deadline, the last message) and the
 * one-line STATUS= that systemctl status shows. */

#include <stdint.h>

#include "swap/manager-data.h"
#include "util/macro.h"

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
/* Back to idle: forget the failure and what the last swap took away. */
void swap_record_forget_swap(SwapMachine *s);

/* The state file's one writer (swap-step.h): the record, from the current
 * state and container, written once per step.
 *   swap_record_save()                outside a dispatch step (the start's
 *                                     reconcile, the stop): now;
 *   swap_record_save_step()           the step's one save: now, unless this
 *                                     step saved; an action calls it just
 *                                     before it changes the node,
 *                                     manager_dispatch() at the step's end;
 *   swap_record_changed()             news for the record: the open step
 *                                     saves it (or the next one, once this
 *                                     one saved); outside a step, now.
 * Each asks for the status document's write once the loop is idle. */
void swap_record_save(Manager *m);
void swap_record_save_step(Manager *m);
void swap_record_changed(Manager *m);
/* The status document and the metrics file, written now (the loop calls
 * it once idle after a save asked for it). */
void swap_record_publish(const SwapMachine *s, SwapPublish *p, SwapMode mode, const SwapNodeView *node);
/* STATUS= for the current state. */
void swap_status_update(const SwapMachine *s, const SwapFollow *f);
