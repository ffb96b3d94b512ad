/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The files of the fabrics connect unit (nvme-swapguard-fabrics.service),
 * each through host-root. The directory is the unit's RuntimeDirectory
 * (root, 0755, preserved): the daemon reads record.json and result.json,
 * never secrets.json.
 *   record.json   0644  the connections to connect again, no secret (fabrics-record.h)
 *   secrets.json  0600  their DH-HMAC-CHAP secrets by identity (fabrics-secrets.h)
 *   result.json   0644  what the last serve-request did (actions/fabrics-result.h)
 *   lock                flock(LOCK_EX) of every writer of the two first (fabrics-lock.h)
 * The request is the daemon's file, in its own RuntimeDirectory
 * (actions/fabrics-request.h). */

#define FABRICS_STATE_DIR "/run/nvme-swapguard-fabrics"
#define FABRICS_RECORD_PATH FABRICS_STATE_DIR "/record.json"
#define FABRICS_SECRETS_PATH FABRICS_STATE_DIR "/secrets.json"
#define FABRICS_RESULT_PATH FABRICS_STATE_DIR "/result.json"
#define FABRICS_LOCK_PATH FABRICS_STATE_DIR "/lock"
#define FABRICS_REQUEST_PATH "/run/nvme-swapguard/fabrics-request"
