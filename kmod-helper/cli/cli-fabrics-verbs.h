/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* `nvme-swapguard-kmod fabrics VERB`: the library's passes, run by an
 * operator or by nvme-swapguard-fabrics.service:
 *   capture              record the live connections and their secrets
 *   connect              connect the recorded ones again (one try each)
 *   serve-request FILE   the daemon's request (verb and token), then result.json
 *   forget               drop the record and the secrets
 * The process is made non-dumpable first: capture and connect read secrets.
 * Text on stdout, one line per connection; --json: the result object
 * (actions/fabrics-result.h). The exit code is the pass's (FABRICS_EXIT_*). */

#include <stdbool.h>

/* args: the words after "fabrics" (NULL-terminated). */
int cli_fabrics_verb(char **args, bool json);
