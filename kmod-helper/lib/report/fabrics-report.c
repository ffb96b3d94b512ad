/* SPDX-License-Identifier: Apache-2.0 */
/* What the swap does to the fabrics connections, as lines and JSON (see
 * fabrics-report.h). */
#include <errno.h>
#include <stdlib.h>

#include "actions/fabrics-result.h"
#include "nvme/fabrics-json.h"
#include "report/fabrics-report.h"
#include "util/escape.h"
#include "util/json-util.h"
#include "util/string-util.h"
#include "util/strv.h"

int fabrics_report_plan_lines(const FabricsTopology *t, const char *suffix, char ***ret) {
        _cleanup_strv_free_ char **lines = strv_new_empty();

        if (!lines)
                return -ENOMEM;
        for (size_t i = 0; t && i < t->n_controllers; i++) {
                _cleanup_free_ char *d = fabrics_controller_describe(&t->controllers[i]);

                if (!d || strv_extendf(&lines, "%s: disconnected by the unload%s%s", d, suffix ? ", " : "",
                                       suffix ?: "") < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(lines);
        return 0;
}

static char *result_line(const FabricsController *c, const FabricsPassEntry *e) {
        _cleanup_free_ char *d = fabrics_controller_describe(c);
        const char *kind = fabrics_error_kind_to_string(e->error_kind);

        if (!d)
                return NULL;
        switch (e->outcome) {
        case FABRICS_OUTCOME_CAPTURED:
                return strdup_printf("%s: recorded", d);
        case FABRICS_OUTCOME_BACK:
                return strdup_printf("%s: reconnected as %s", d, e->controller ?: "?");
        case FABRICS_OUTCOME_ALREADY_LIVE:
                return strdup_printf("%s: already connected as %s", d, e->controller ?: "?");
        case FABRICS_OUTCOME_SKIPPED_NO_TRANSPORT:
                return strdup_printf("%s: not tried: its transport module is not loaded", d);
        case FABRICS_OUTCOME_LOST:
                return strdup_printf("%s: given up (ctrl_loss_tmo has passed)%s%s", d, kind ? "; last error: " : "",
                                     kind ?: "");
        default:
                return strdup_printf("%s: not back (%s: %s); tried again after its reconnect_delay", d, kind ?: "other",
                                     e->message ?: "failed");
        }
}

int fabrics_report_result_lines(const FabricsPassResult *r, char ***ret) {
        _cleanup_strv_free_ char **lines = strv_new_empty();

        if (!lines)
                return -ENOMEM;
        for (size_t i = 0; r && i < r->connections->n_controllers; i++)
                if (strv_push(&lines, result_line(&r->connections->controllers[i], &r->entries[i])) < 0)
                        return -ENOMEM;
        *ret = TAKE_PTR(lines);
        return 0;
}

int fabrics_report_topology_json(const FabricsTopology *t, json_object **ret) {
        return fabrics_topology_to_json(t, ret);
}

int fabrics_report_result_json(const FabricsPassResult *r, json_object **ret) {
        return fabrics_result_to_json(r, r ? r->verb : _FABRICS_VERB_INVALID, 0, 0, NULL, ret);
}

int fabrics_report_lines_text(const char *heading, char *const *lines, FILE *f) {
        if (!lines || !lines[0])
                return 0;
        fprintf(f, "%s\n", heading);
        STRV_FOREACH(l, lines) {
                fputs("  ", f);
                if (fputs_escaped(*l, f) < 0)
                        return -EIO;
                fputc('\n', f);
        }
        return ferror(f) ? -EIO : 0;
}
