/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The manager's side of the node labels (publish/node-labels.h): the file
 * rewritten when what it says changes (a state, the GDS hooks' match, the
 * namespaces back, a reload) and on a refresh well inside its expiry, so
 * that labels of a daemon that stopped, crashed or went away expire by
 * themselves; STATUS= says when no labels are published, and why. */

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "manager-data.h"

/* Its data: ManagerLabels, with the other sources (manager-sources.h). */

/* Arms the refresh. Without it the labels still follow the state, and
 * expire NODE_LABELS_EXPIRY_SEC after the last change. */
void manager_labels_setup(Manager *m);
/* Writes the file when what it says changed (or the directory came or went). */
void manager_labels_update(Manager *m);
/* The daemon stops: a file without labels, expiring now. */
void manager_labels_stop(Manager *m);
void manager_labels_free(Manager *m);
