/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The daemon's side of the pin (kmod-helper/lib/usage/usage-pin.h): while
 * any NVMe namespace is in use, the controllers under it are held open so
 * that nobody (openibd's `modprobe -r nvme`, a person's `rmmod nvme`) can
 * remove its driver. This file asks NodeOps to match the pin to a fresh
 * usage check and says what changed, where a person looks: the journal
 * (PINNED, UNPINNED, PIN_PROBLEM, PIN_BLOCKS_DRIVER entries) and one line
 * for STATUS= and the state file. It holds no descriptor itself. */

#include <stdbool.h>

#include "node/node-ops.h"

typedef struct PinHolder PinHolder;

PinHolder *pin_holder_new(const NodeOps *ops);
PinHolder *pin_holder_free(PinHolder *h);

/* Matches the pin to the namespaces' use now and reports what changed
 * (each reason once, when it appears; the release once). A check that
 * cannot be made keeps the pin as it is. Returns 1 when what is pinned
 * changed, 0 when not, -errno. A no-op (0) when the ops cannot pin. */
int pin_holder_refresh(PinHolder *h);

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

/* A driver container started (or stopped) while the pin holds: its openibd
 * cannot remove nvme. Says so, and why, once per container and event. */
void pin_holder_driver_container(PinHolder *h, const char *container_id, const char *pod, bool started);
