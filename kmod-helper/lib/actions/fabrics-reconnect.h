/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The connect pass: after a load or restore, each pending connection of the
 * record (nvme/fabrics-record.h) is connected again, once, under the lock:
 *   - its identity live again (someone connected it, or the kernel kept it):
 *     "already-live", dropped from the record;
 *   - its transport module not loaded (/sys/module/<nvme_tcp|nvme_rdma|nvme_fc>):
 *     "skipped-no-transport", kept: the kernel's nvmf_create_ctrl() would
 *     request_module() the host's own behind the swap's back;
 *   - else one write of the option string (fabrics-options.h, every value
 *     checked first) to /dev/nvme-fabrics (fabrics-connect.h), with its
 *     secrets from the secrets file: "back", dropped with its secrets; or
 *     "failed": attempts + 1, the errno's kind (nvme/fabrics-retry.h), the
 *     next try and the give-up time; past the give-up time "lost".
 * lost_at is set when a pass first finds the connection not live. Lost
 * entries are not tried; they stay until a capture replaces the record or
 * `fabrics forget`. The record and the secrets file are removed when no
 * entry remains. The write can block for the kernel's handshake timeouts:
 * only the connect unit and the CLI run this. */

#include <stdint.h>

#include "actions/fabrics-pass.h"

/* 0 with *ret (exit_code FABRICS_EXIT_*), or -ENOMEM. now_usec:
 * CLOCK_REALTIME, passed in so that tests need not wait. -EPERM in the
 * error under a fake root without the test fake kernel (host/kernel-target.h). */
int fabrics_connect_pass(uint64_t now_usec, FabricsPassResult **ret);

/* The same for the daemon's request (serve-request): an entry whose next
 * try (the record's next_try_at, set by its last failed try) is not due
 * yet is answered "failed" with that time and its last error, and not
 * tried: however often the daemon asks (each load, restore, start), a
 * target hears from this node no more often than its reconnect_delay. A
 * person's `restore` or `fabrics connect` tries at once. */
int fabrics_connect_pass_due(uint64_t now_usec, FabricsPassResult **ret);
