/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The daemon's side of the pin (kmod-helper/lib/usage/usage-pin.h): while
 * any NVMe namespace is in use, the controllers under it are held open so
 * that nobody (openibd's `modprobe -r nvme`, a person's `rmmod nvme`) can
 * remove its driver. This file asks NodeOps to match the pin to a fresh
 * usage check and keeps what changed (pin_holder_last_change()) and one
 * line for STATUS= and the state file. It tells nothing itself: node/ only
 * returns what happened, and the caller says it where a person looks
 * (swap/pin-report.h: the journal's PINNED, UNPINNED, PIN_PROBLEM and
 * PIN_BLOCKS_DRIVER entries). It holds no descriptor itself. */

#include <stdbool.h>

#include "node/node-ops.h"

typedef struct PinHolder PinHolder;

PinHolder *pin_holder_new(const NodeOps *ops);
PinHolder *pin_holder_free(PinHolder *h);

/* Matches the pin to the namespaces' use now and keeps what changed for
 * pin_holder_last_change(). A check that cannot be made keeps the pin as it
 * is (and the last change as it was): the caller says why. Returns 1 when
 * what is pinned changed, 0 when not, -errno. A no-op (0) when the ops
 * cannot pin. */
int pin_holder_refresh(PinHolder *h);

/* What the last successful pin_holder_refresh() changed, for the caller to
 * tell: each reason of `now` not in `before` appeared; `before` held and
 * `now` not is the release; `problems_new` when now's problems differ from
 * those last seen (each set is to be said once). Pointers into the holder,
 * valid until its next refresh. */
typedef struct PinChange {
        const NodePin *before;      /* the pin before that refresh, NULL when nothing was held */
        const char *before_summary; /* its reasons joined with "; ", NULL when nothing was held */
        const NodePin *now;         /* the pin after it (held or not), NULL before any refresh */
        bool problems_new;          /* now->problems are new: say them */
} PinChange;
PinChange pin_holder_last_change(const PinHolder *h);

/* Whether anything is pinned now, and what: the reasons, joined with "; "
 * (NULL when nothing is). */
bool pin_holder_held(const PinHolder *h);
const char *pin_holder_summary(const PinHolder *h);
/* Whether a process's plain open is among what holds the pin: its close
 * makes no event (no uevent, no mount table change), so the caller must
 * look again by itself. */
bool pin_holder_has_opens(const PinHolder *h);
/* The reasons, NULL-terminated (NULL when nothing is pinned). */
char *const *pin_holder_reasons(const PinHolder *h);
/* The pin now: NULL when nothing is pinned. */
const NodePin *pin_holder_pin(const PinHolder *h);
