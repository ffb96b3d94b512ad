/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What a step notes in the record: the other half of swap-report.c's
 * reports. A report tells (the journal) and changes nothing; what the same
 * moment learned is written here, by a call of its own that the caller
 * makes beside the report: the builds loaded, the namespaces still
 * missing, the blockers and their processes, the failure, the record's
 * last message. Kept apart from swap-record.c, the record's writer (the
 * state file once per step, when the manager saves; STATUS=): these change
 * only the SwapMachine, in memory, and the step's save writes it. */

#include <stdarg.h>
#include <stdbool.h>

#include "node/node-ops.h"
#include "swap/swap-machine.h"
#include "swap/swap-snapshot.h"
#include "util/macro.h"

/* The namespaces now against those seen before the unload, the missing
 * ones noted (the record's missing_namespaces, NULL: all back). true when
 * that is worth telling (swap_report_namespaces()); false with nothing seen
 * before the unload, or when the namespaces cannot be compared (said). */
bool swap_note_namespaces(SwapMachine *s, const SwapNodeView *node);
/* Which build each loaded module of the stack is (the state file's
 * module_builds). */
void swap_note_builds(SwapMachine *s, const NodeStack *stack);
/* Swapped: the builds of the stack told, and the last message. */
void swap_note_swapped(SwapMachine *s, const NodeStack *stack, const char *by);
/* Restored after what started the restore (ev: restore-done). */
void swap_note_restored(SwapMachine *s, SwapEvent ev);
/* A stop while the stack was unloaded restored it: the next start swaps
 * again, so the record keeps what it knows of this swap. */
void swap_note_stop_restored(SwapMachine *s);
/* The blockers of a refused unload: their processes (worth a re-check when
 * one exits) always; the blockers, the last message and, in observe, the
 * record's `would`, when they are not those said last time. true then: the
 * blockers are to be told (swap_report_blockers()). */
bool swap_note_blockers(SwapMachine *s, SwapMode mode, const NodeBlockers *b);
/* The last message of an unload: what it took out. */
void swap_note_unloaded(SwapMachine *s, char *const *removed);
/* What came from the container's tree, for the unload of this build (the
 * state file's build_modules). */
void swap_note_loaded(SwapMachine *s, const NodeLoadResult *l);
/* The failure (the "why" of FAILED), also the last message. An argument may
 * be the old failure. */
void swap_note_failure(SwapMachine *s, const char *fmt, ...) _printf_(2, 3);
void swap_note_failurev(SwapMachine *s, const char *fmt, va_list ap) _printf_(2, 0);
/* Failed with no action having said why. */
void swap_note_gave_up(SwapMachine *s, SwapEvent ev);
