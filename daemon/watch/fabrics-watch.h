/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The daemon's side of nvme-swapguard-fabrics.service, the short-lived
 * root unit that captures the node's NVMe over Fabrics connections before
 * an unload and connects them again after a load (the CLI's `fabrics
 * serve-request`). The kernel's connect blocks its writer for seconds to
 * minutes and needs the host's network and the node's DH-HMAC-CHAP
 * secrets, none of which the daemon has or wants: it only asks and waits.
 *
 * Asking is writing /run/nvme-swapguard/fabrics-request ("verb=...",
 * "token=..."; atomically: the .path unit must never see half of it);
 * the answer is /run/nvme-swapguard-fabrics/result.json with the same
 * token, seen by inotify (path-watch.h). One request at a time; a deadline
 * ends the wait when the unit never answers (not installed, failed,
 * stuck), and the handler is told why. Nothing here blocks: a stop of the
 * daemon leaves the unit to finish on its own. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "util/macro.h"
#include "watch/fabrics-result.h"

#define WATCH_FABRICS_REQUEST "/run/nvme-swapguard/fabrics-request"
#define WATCH_FABRICS_DIR "/run/nvme-swapguard-fabrics"
#define WATCH_FABRICS_RESULT WATCH_FABRICS_DIR "/result.json"
#define WATCH_FABRICS_RECORD WATCH_FABRICS_DIR "/record.json"
#define FABRICS_UNIT "nvme-swapguard-fabrics"

/* A capture reads sysfs and writes two small files; a connect may wait on
 * the kernel for each connection (10 s per queue's handshake, the admin
 * timeout behind it) under the unit's own TimeoutStartSec=5min. */
#define FABRICS_CAPTURE_DEADLINE_USEC (UINT64_C(60) * 1000000)
#define FABRICS_CONNECT_DEADLINE_USEC (UINT64_C(6) * 60 * 1000000)

typedef struct FabricsWatch FabricsWatch;

/* res: the answer (NULL when there is none); error: why there is none or
 * why the verb failed as a whole (the result's own "error"), one line
 * naming the unit's journal; NULL on success. */
typedef void (*FabricsWatchHandler)(FabricsWatch *w, const char *verb, const FabricsResult *res, const char *error,
                                    void *userdata);

int fabrics_watch_new(sd_event *e, FabricsWatchHandler handler, void *userdata, FabricsWatch **ret);
FabricsWatch *fabrics_watch_free(FabricsWatch *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(FabricsWatch *, fabrics_watch_free);

/* Writes the request (verb "capture" or "connect") with a new token and
 * waits for its answer up to deadline_usec. -EBUSY while one is awaited,
 * -errno when the request cannot be written (nothing awaited then). */
int fabrics_watch_request(FabricsWatch *w, const char *verb, uint64_t deadline_usec);
/* The verb awaited, NULL when none. */
const char *fabrics_watch_busy(const FabricsWatch *w);
/* The token of the last request (0: none yet). */
uint64_t fabrics_watch_token(const FabricsWatch *w);
