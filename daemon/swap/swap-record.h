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
const char *swap_record_container_id(const Manager *m);

/* The last report, one line, for the state file. */
void swap_record_message(SwapMachine *s, const char *fmt, ...) _printf_(2, 3);
/* No longer blocked: forget the blockers (and that they were reported). */
void swap_record_forget_blockers(SwapMachine *s);
/* Back to idle: forget the failure and what the last swap took away. */
void swap_record_forget_swap(SwapMachine *s);

/* Writes the state file from the current state and container. */
void swap_record_persist(Manager *m);
/* The status document and the metrics file, written now (the loop calls
 * it once idle after swap_record_persist() asked for it). */
void swap_record_publish(Manager *m);
/* STATUS= for the current state. */
void swap_status_update(Manager *m);
