/* SPDX-License-Identifier: Apache-2.0 */
/* The fabrics verbs of the CLI (see cli-fabrics-verbs.h): argument
 * handling and printing only, the policy is the library's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions/fabrics-capture.h"
#include "actions/fabrics-reconnect.h"
#include "actions/fabrics-request.h"
#include "actions/fabrics-result.h"
#include "cli-fabrics-verbs.h"
#include "cli-fabrics.h"
#include "report/fabrics-report.h"
#include "report/report-json.h"
#include "util/escape.h"
#include "util/json-util.h"
#include "util/strv.h"

static const char *program = "nvme-swapguard-kmod";

static int print(const FabricsPassResult *r, const char *error, bool json) {
        _cleanup_strv_free_ char **lines = NULL;
        _cleanup_json_ json_object *o = NULL;
        int k;

        if (error || (r && r->error)) {
                /* may quote a file's content or the kernel's words: escaped */
                _cleanup_free_ char *e = escape_control(error ?: r->error);

                fprintf(stderr, "%s: fabrics %s: %s\n", program,
                        r ? fabrics_verb_to_string(r->verb) : "serve-request", e ?: "?");
        }
        if (json) {
                k = fabrics_result_to_json(r, _FABRICS_VERB_INVALID, 0, cli_fabrics_now(), error, &o);
                return k < 0 ? k : report_json_print(o, stdout);
        }
        if (!r)
                return 0;
        if ((k = fabrics_report_result_lines(r, &lines)) < 0)
                return k;
        if (!lines[0] && !r->error)
                puts("No NVMe over Fabrics connection to act on.");
        return fabrics_report_lines_text("NVMe over Fabrics connections:", lines, stdout);
}

static int usage_error(const char *what) {
        fprintf(stderr, "%s: fabrics %s (capture, connect, serve-request FILE, forget; see --help)\n", program, what);
        return FABRICS_EXIT_ERROR;
}

int cli_fabrics_verb(char **args, bool json) {
        _cleanup_(fabrics_pass_result_freep) FabricsPassResult *r = NULL;
        _cleanup_free_ char *error = NULL;
        size_t n = strv_length(args);
        int k, exit_code;

        if (n == 0)
                return usage_error("needs a verb");
        if (!streq(args[0], "serve-request") && n > 1)
                return usage_error("takes no argument after the verb");
        /* Before anything reads a secret into this process. */
        cli_fabrics_no_dump();
        if (streq(args[0], "capture"))
                k = fabrics_capture_pass(cli_fabrics_now(), &r);
        else if (streq(args[0], "connect"))
                k = fabrics_connect_pass(cli_fabrics_now(), &r);
        else if (streq(args[0], "forget"))
                k = fabrics_forget_pass(&r);
        else if (streq(args[0], "serve-request")) {
                if (n != 2 || args[1][0] != '/')
                        return usage_error("serve-request needs one absolute FILE");
                k = fabrics_serve_request(args[1], cli_fabrics_now, &r, &error);
                if (k >= 0) {
                        exit_code = k;
                        k = print(r, error, json);
                        return k < 0 ? FABRICS_EXIT_ERROR : exit_code;
                }
        } else
                return usage_error("has no such verb");
        if (k < 0) {
                fprintf(stderr, "%s: fabrics %s: %s\n", program, args[0], strerror(-k));
                return FABRICS_EXIT_ERROR;
        }
        k = print(r, NULL, json);
        return k < 0 ? FABRICS_EXIT_ERROR : r->exit_code;
}
