/* SPDX-License-Identifier: Apache-2.0 */
/* What the CLI says about the fabrics connections, as text and as the
 * "fabrics" object of --json (see cli-fabrics.h). Never a secret: the
 * topology holds none. */
#include <errno.h>
#include <stdlib.h>

#include "cli-fabrics-report.h"
#include "nvme/fabrics-record.h"
#include "report/fabrics-report.h"
#include "report/report-json.h"
#include "report/report-text.h"
#include "util/escape.h"
#include "util/json-util.h"
#include "util/strv.h"

static bool shows_plan(const CliFabrics *f) {
        return (f->stage == CLI_FABRICS_PLAN || f->stage == CLI_FABRICS_UNLOAD) && f->live;
}

static int add_topology(json_object *o, const char *key, const FabricsTopology *t) {
        json_object *a = NULL;
        int r;

        if (!t)
                return json_add(o, key, NULL);
        r = fabrics_report_topology_json(t, &a);
        return r < 0 ? r : json_add(o, key, a);
}

static int add_record(json_object *o, const CliFabrics *f) {
        _cleanup_json_ json_object *rec = NULL;
        int r;

        if (!f->record)
                return json_add(o, "record", NULL);
        rec = json_object_new_object();
        if (!rec)
                return -ENOMEM;
        if ((r = json_add_new(rec, "path", json_object_new_string(FABRICS_RECORD_PATH))) < 0 ||
            (r = add_topology(rec, "connections", f->record)) < 0)
                return r;
        return json_add(o, "record", TAKE_PTR(rec));
}

static int add_plan(json_object *o, const CliFabrics *f) {
        _cleanup_strv_free_ char **lines = NULL;
        json_object *a = NULL;
        int r;

        if (!shows_plan(f))
                return json_add(o, "plan", NULL);
        if ((r = fabrics_report_plan_lines(f->live, f->after, &lines)) < 0 || (r = json_array_from_strv(lines, &a)) < 0)
                return r;
        return json_add(o, "plan", a);
}

static int add_results(json_object *o, const CliFabrics *f) {
        json_object *v = NULL;
        int r;

        if (f->missing) {
                if ((r = json_array_from_strv(f->missing, &v)) < 0 || (r = json_add(o, "missing_transports", v)) < 0)
                        return r;
        } else if ((r = json_add(o, "missing_transports", NULL)) < 0)
                return r;
        v = NULL;
        if (f->transports && (r = report_load_json(f->transports, &v)) < 0)
                return r;
        if ((r = json_add(o, "transports", v)) < 0)
                return r;
        v = NULL;
        if (f->capture && (r = fabrics_report_result_json(f->capture, &v)) < 0)
                return r;
        if ((r = json_add(o, "capture", v)) < 0)
                return r;
        v = NULL;
        if (f->reconnect && (r = fabrics_report_result_json(f->reconnect, &v)) < 0)
                return r;
        return json_add(o, "reconnect", v);
}

int cli_fabrics_json(const CliFabrics *f, json_object *o) {
        _cleanup_json_ json_object *fab = json_object_new_object();
        int r;

        if (!fab)
                return -ENOMEM;
        if ((r = add_topology(fab, "connections", f->live)) < 0 || (r = add_record(fab, f)) < 0 ||
            (r = json_add(fab, "record_error", f->record_error ? json_object_new_string(f->record_error) : NULL)) < 0 ||
            (r = add_plan(fab, f)) < 0 ||
            (r = json_add_new(fab, "record_saved", json_object_new_boolean(f->record_saved))) < 0 ||
            (r = json_add_new(fab, "record_removed", json_object_new_boolean(f->record_removed))) < 0 ||
            (r = add_results(fab, f)) < 0)
                return r;
        return json_add(o, "fabrics", TAKE_PTR(fab));
}

static int text_topology(const char *heading, const FabricsTopology *t, bool with_state, FILE *out) {
        _cleanup_strv_free_ char **lines = strv_new_empty();

        if (!lines)
                return -ENOMEM;
        for (size_t i = 0; t && i < t->n_controllers; i++) {
                _cleanup_free_ char *d = fabrics_controller_describe(&t->controllers[i]);

                if (!d || strv_extendf(&lines, "%s%s%s%s", d, with_state ? " (" : "",
                                       with_state ? t->controllers[i].state ?: "?" : "", with_state ? ")" : "") < 0)
                        return -ENOMEM;
        }
        return fabrics_report_lines_text(heading, lines, out);
}

static int text_plan(const CliFabrics *f, FILE *out) {
        _cleanup_strv_free_ char **lines = NULL;
        int r = fabrics_report_plan_lines(f->live, f->after, &lines);

        if (r < 0)
                return r;
        return fabrics_report_lines_text(f->stage == CLI_FABRICS_UNLOAD && f->record_saved && !f->record_removed
                                                 ? "NVMe over Fabrics connections (recorded in " FABRICS_RECORD_PATH "):"
                                                 : "NVMe over Fabrics connections the unload drops:",
                                         lines, out);
}

static int text_results(const CliFabrics *f, FILE *out) {
        _cleanup_strv_free_ char **lines = NULL;
        int r;

        if (f->transports && (!load_result_ok(f->transports) || f->stage == CLI_FABRICS_LOAD)) {
                fputs("Fabrics transports:\n", out);
                if ((r = report_load_text(f->transports, out)) < 0)
                        return r;
        }
        if (f->reconnect) {
                if ((r = fabrics_report_result_lines(f->reconnect, &lines)) < 0 ||
                    (r = fabrics_report_lines_text("NVMe over Fabrics connections:", lines, out)) < 0)
                        return r;
        }
        if (f->record && !f->record_removed && f->stage == CLI_FABRICS_LOAD)
                fprintf(out, "The fabrics record stays in %s: load or restore again reconnects what is not back.\n",
                        FABRICS_RECORD_PATH);
        return 0;
}

int cli_fabrics_text(const CliFabrics *f, FILE *out) {
        int r = 0;

        switch (f->stage) {
        case CLI_FABRICS_STATUS:
                r = text_topology("NVMe over Fabrics connections:", f->live, true, out);
                if (r >= 0)
                        r = text_topology("Fabrics record pending (" FABRICS_RECORD_PATH
                                          "; load or restore reconnects these):", f->record, false, out);
                if (r >= 0 && f->record_error)
                        fputs("Fabrics record unreadable: ", out), fputs_escaped(f->record_error, out), fputc('\n', out);
                break;
        case CLI_FABRICS_PLAN:
                r = text_plan(f, out);
                break;
        case CLI_FABRICS_UNLOAD:
                if (f->record_saved && !f->record_removed && !f->reconnect)
                        r = text_plan(f, out);
                if (r >= 0)
                        r = text_results(f, out);
                break;
        case CLI_FABRICS_LOAD:
                r = text_results(f, out);
                break;
        }
        return r < 0 ? r : ferror(out) ? -EIO : 0;
}
