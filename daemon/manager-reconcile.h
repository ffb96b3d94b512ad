/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The start-up reconcile: what the previous instance left (the state file)
 * and what the node shows now (the stack, drives without a driver, the
 * followed container, the ready file) decide the state the daemon resumes
 * in (swap/reconcile.h, pure), and the event that follows, if any. Run
 * once, by manager_start(), after the event sources are added (their first
 * look found the container and the ready file) and before READY=1. */

#include "manager-data.h"

void manager_reconcile(Manager *m);
