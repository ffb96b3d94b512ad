/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The pin's journal entries, where a person looks: what a refresh of the
 * pin holder changed (node/pin-holder.h keeps it and tells nothing itself)
 * and a driver container that the pin keeps from restarting its drivers. */

#include <stdbool.h>

#include "node/pin-holder.h"

/* Says what the last successful pin_holder_refresh() changed: each reason
 * once, when it appears (PINNED); the release once (UNPINNED); the
 * problems once per set (PIN_PROBLEM). Call once after each refresh that
 * did not fail. */
void pin_report_refresh(const PinHolder *h);

/* A driver container started (or stopped) while the pin holds: its openibd
 * cannot remove nvme. Says so, and why (PIN_BLOCKS_DRIVER), once per
 * container and event: the caller calls it once for each. Nothing when
 * nothing is pinned. The pin holder's name, as the manager calls it. */
void pin_holder_driver_container(const PinHolder *h, const char *container_id, const char *pod, bool started);
