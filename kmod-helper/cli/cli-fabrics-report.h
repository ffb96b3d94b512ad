/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the CLI gathered about the fabrics connections (cli-fabrics.h), as
 * the report's JSON object and text lines. */

#include <stdio.h>

#include "cli-fabrics.h"

struct json_object;

/* Adds "fabrics" to o: {"connections","record","record_error","plan",
 * "record_saved","record_removed","missing_transports","transports",
 * "capture","reconnect"} (null when not part of this command); "capture" and
 * "reconnect" are result objects (actions/fabrics-result.h). */
int cli_fabrics_json(const CliFabrics *f, struct json_object *o);
/* The text lines for this stage (nothing when there are no connections). */
int cli_fabrics_text(const CliFabrics *f, FILE *out);
