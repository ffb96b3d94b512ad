/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

#include "manager-data.h"

/* SIGTERM, SIGINT (stop) and SIGHUP (reload) on the manager's loop. */
int manager_signals_add(Manager *m);
/* The stop SIGTERM makes (the comment of on_terminate() in
 * manager-signals.c: an unloaded stack restored, the reload block removed,
 * the record persisted), then the loop ends: manager_run() returns
 * exit_code (0: a clean stop; non-zero: the unit's Restart= brings the
 * daemon back, and the start's reconcile resumes). A second call does
 * nothing. */
int manager_stop(Manager *m, int exit_code);
