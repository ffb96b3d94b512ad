/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The daemon's request to the connect unit: FABRICS_REQUEST_PATH
 * (nvme/fabrics-paths.h), written atomically by the daemon, noticed by
 * nvme-swapguard-fabrics.path, served by `nvme-swapguard-kmod fabrics
 * serve-request FILE`. Exactly two lines, in any order:
 *   verb=capture|connect
 *   token=<decimal u64>
 * (a final newline or not). The daemon owns freshness through the token,
 * echoed in result.json. */

#include <stdint.h>

#include "actions/fabrics-pass.h"

#define FABRICS_REQUEST_MAX 4096u

typedef struct FabricsRequest {
        FabricsVerb verb;
        uint64_t token;
} FabricsRequest;

/* Pure. 0 with *ret; -EBADMSG with *ret_error a malloc'd line naming path
 * and the line ("/run/nvme-swapguard/fabrics-request:2: token: \"x\" is not a
 * decimal number") and ret->token the token when one parsed (else 0);
 * -ENOMEM. */
int fabrics_request_parse(const char *text, const char *path, FabricsRequest *ret, char **ret_error);

/* serve-request: reads path (through host-root), unlinks it before acting
 * (so that the path unit does not start the service again for it), runs
 * the verb's pass at now(), and writes result.json with the token last.
 * A request that does not parse runs nothing: result.json says why (token 0
 * unless one parsed). *ret_result (may be NULL): the pass's result (NULL
 * when none ran); *ret_error: why nothing ran, malloc'd, or NULL. Returns
 * the exit code (FABRICS_EXIT_*), or -ENOMEM. */
int fabrics_serve_request(const char *path, uint64_t (*now)(void), FabricsPassResult **ret_result, char **ret_error);
