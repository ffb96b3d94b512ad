/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The one lock of the fabrics record and secrets (FABRICS_LOCK_PATH): an
 * flock(LOCK_EX) taken by every writer (the capture and connect passes, run
 * by the service and by the CLI's unload / load --from) for as long as it
 * reads, decides and writes them. Readers (the daemon) take none: the files
 * are replaced atomically. */

#include "nvme/fabrics-paths.h"

/* How long a writer waits for another one: a connect pass holds the lock
 * across its kernel writes, which can take the kernel's handshake timeouts;
 * a second writer then gives up and says so rather than queue for minutes. */
#define FABRICS_LOCK_WAIT_MSEC 5000u

/* Opens (creating, 0600, with the directory 0755) and locks the lock file,
 * waiting up to wait_msec (0: try once). 0 with *ret_fd (close it to
 * unlock), -EWOULDBLOCK when another process held it all that time, -errno. */
int fabrics_lock_take(unsigned wait_msec, int *ret_fd);
