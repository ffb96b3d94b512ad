/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The privileged reader's end, seen by the manager's loop: the daemon
 * without its reader is blind (every namespace unchecked, no store file,
 * no watch of the store), so it says how the reader ended and stops
 * (manager_stop()) with a failure, for the unit's Restart= to start it
 * again with a new reader; the start's reconcile resumes from the state
 * file. */

#include "sandbox/privileged-reader.h"
#include "manager-data.h"

/* Watches r's end (privileged_reader_end_fd()) on the manager's loop. r
 * outlives m. -errno when it cannot be watched. */
int manager_reader_watch(Manager *m, PrivilegedReader *r);
void manager_reader_free(Manager *m);
