/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The files of the fabrics connect unit (nvme-swapguard-fabrics.service),
 * each through host-root. FABRICS_STATE_DIR is the unit's RuntimeDirectory
 * (root, 0755, preserved): the daemon reads record.json and result.json.
 *   record.json   0644  the connections to connect again, no secret (fabrics-record.h)
 *   result.json   0644  what the last serve-request did (actions/fabrics-result.h)
 *   lock                flock(LOCK_EX) of every writer of the record and secrets (fabrics-lock.h)
 * The secrets sit in a directory of their own, root 0700, which the
 * daemon's unit makes inaccessible (InaccessiblePaths=): its identity
 * cannot traverse it whatever capabilities it holds.
 *   secrets.json  0600  their DH-HMAC-CHAP secrets by identity (fabrics-secrets.h)
 * FABRICS_OLD_SECRETS_PATH is where earlier versions kept them (the state
 * directory, which the daemon can traverse): moved on first use.
 * The request is the daemon's file, in its own RuntimeDirectory
 * (actions/fabrics-request.h). */

#define FABRICS_STATE_DIR "/run/nvme-swapguard-fabrics"
#define FABRICS_RECORD_PATH FABRICS_STATE_DIR "/record.json"
#define FABRICS_RESULT_PATH FABRICS_STATE_DIR "/result.json"
#define FABRICS_LOCK_PATH FABRICS_STATE_DIR "/lock"
#define FABRICS_SECRETS_DIR "/run/nvme-swapguard-secrets"
#define FABRICS_SECRETS_PATH FABRICS_SECRETS_DIR "/secrets.json"
#define FABRICS_OLD_SECRETS_PATH FABRICS_STATE_DIR "/secrets.json"
#define FABRICS_REQUEST_PATH "/run/nvme-swapguard/fabrics-request"
