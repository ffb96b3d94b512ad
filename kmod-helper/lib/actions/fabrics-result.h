/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* A pass's result as JSON: the CLI's --json of the fabrics verbs and
 * result.json (FABRICS_RESULT_PATH), the daemon's answer to its request.
 *   {"token":N,"verb":"capture"|"connect","finished_at":usec,"exit":N,
 *    "error":"text"|null,
 *    "connections":[{"transport","traddr","trsvcid","host_traddr","host_iface",
 *      "subsysnqn","hostnqn","hostid","old_name","description",
 *      "outcome":"captured"|"back"|"already-live"|"failed"|"skipped-no-transport"|"lost",
 *      "error_kind":"refused"|"no-answer"|"auth"|"exists"|"invalid"|"other"|null,
 *      "errno":N,"message":"text"|null,"controller":"nvmeX"|null,
 *      "next_try_usec":N,"give_up_at_usec":N}]}
 * next_try_usec, give_up_at_usec: CLOCK_REALTIME usec, 0 for none / never.
 * Never a secret: the pass holds none. */

#include <stdint.h>

#include "actions/fabrics-pass.h"

struct json_object;

/* r (NULL: a verb that did not run, with error and exit 1) as the object
 * above. verb overrides r's when r is NULL (_FABRICS_VERB_INVALID: null).
 * 0 or -ENOMEM. */
int fabrics_result_to_json(const FabricsPassResult *r, FabricsVerb verb, uint64_t token, uint64_t finished_at_usec,
                           const char *error, struct json_object **ret);

/* Writes that object to FABRICS_RESULT_PATH atomically (temp + rename),
 * mode 0644. 0 or -errno. */
int fabrics_result_write(const FabricsPassResult *r, FabricsVerb verb, uint64_t token, uint64_t finished_at_usec,
                         const char *error);
