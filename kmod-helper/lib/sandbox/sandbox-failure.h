/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What a failed parser_sandbox_run() means, in words for the caller's
 * message (a static string): r is its return value, sig the signal that
 * ended the child (0 when none). */
const char *parser_sandbox_failure(int r, int sig);
