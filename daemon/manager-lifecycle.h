/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The manager's side of the driver container's life (swap/swap-lifecycle.h):
 * where one news spans several owners' files, the manager calls each with
 * its owners, in the order the journal and the record have always had: a
 * newly followed container (the lifecycle, then NVMe-oF's transports, then
 * UnloadAt=auto's moment), nvidia_fs's news (the GDS report, then the
 * record's save). */

#include "manager-data.h"

/* A container is now followed (or the record it is judged against was just
 * read at start): decide and report, once per container; m->ready_present
 * says whether its ready file counts. */
void manager_container_followed(Manager *m);
/* nvidia_fs was loaded or removed: the GDS generation check again (swapped). */
void manager_nvfs_changed(Manager *m);
