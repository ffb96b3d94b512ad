/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <signal.h>

#include "sandbox/sandbox-failure.h"

const char *parser_sandbox_failure(int r, int sig) {
        switch (r) {
        case -ETIME:
                return "the parser child passed its deadline and was killed";
        case -EMSGSIZE:
                return "the parser child's reply was too large";
        case -EPERM:
                return "the parser child could not confine itself";
        case -EPROTO:
                return sig == SIGSYS ? "the parser child made a system call its filter forbids and was killed"
                       : sig     ? "the parser child was killed by a signal (a limit or a crash)"
                                 : "the parser child exited without a reply";
        default:
                return "the parser child could not be started";
        }
}
