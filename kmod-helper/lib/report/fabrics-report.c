/* SPDX-License-Identifier: Apache-2.0 */
/* What the swap does to the fabrics connections, as lines and JSON (see
 * fabrics-report.h). */
#include <errno.h>
#include <stdlib.h>

#include "nvme/fabrics-record.h"
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

static char *result_line(const FabricsReconnectEntry *e) {
        _cleanup_free_ char *names = strv_join(e->namespaces, ", "), *missing = strv_join(e->missing, ", ");

        if (!names || !missing)
                return NULL;
        switch (e->outcome) {
        case FABRICS_RECONNECTED:
                return strdup_printf("%s: reconnected as %s%s%s%s", e->description, e->new_name ?: "?",
                                     *names ? " (" : "", names, *names ? ")" : "");
        case FABRICS_ALREADY_LIVE:
                return strdup_printf("%s: already connected as %s%s%s%s", e->description, e->new_name ?: "?",
                                     *names ? " (" : "", names, *names ? ")" : "");
        case FABRICS_NAMESPACES_MISSING:
                return strdup_printf("%s: reconnected as %s, but not back: %s", e->description, e->new_name ?: "?",
                                     missing);
        default:
                return strdup_printf("%s: not reconnected: %s%s%s", e->description, e->error_message ?: "failed",
                                     e->kernel_message ? "; the kernel said: " : "", e->kernel_message ?: "");
        }
}

int fabrics_report_result_lines(const FabricsReconnectResult *r, char ***ret) {
        _cleanup_strv_free_ char **lines = strv_new_empty();

        if (!lines)
                return -ENOMEM;
        for (size_t i = 0; r && i < r->n_entries; i++)
                if (strv_push(&lines, result_line(&r->entries[i])) < 0)
                        return -ENOMEM;
        *ret = TAKE_PTR(lines);
        return 0;
}

int fabrics_report_topology_json(const FabricsTopology *t, json_object **ret) {
        return fabrics_topology_to_json(t, ret);
}

static int add_string(json_object *o, const char *key, const char *s) {
        return s ? json_add_new(o, key, json_object_new_string(s)) : json_add(o, key, NULL);
}

static int entry_json(const FabricsReconnectEntry *e, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        json_object *names = NULL, *missing = NULL;
        int r;

        if (!o)
                return -ENOMEM;
        if ((r = add_string(o, "description", e->description)) < 0 || (r = add_string(o, "address", e->address)) < 0 ||
            (r = add_string(o, "old_name", e->old_name)) < 0 || (r = add_string(o, "new_name", e->new_name)) < 0 ||
            (r = add_string(o, "outcome", fabrics_reconnect_outcome_to_string(e->outcome))) < 0 ||
            (r = json_add(o, "errno", e->error ? json_object_new_int(e->error) : NULL)) < 0 ||
            (r = add_string(o, "error", e->error_message)) < 0 ||
            (r = add_string(o, "kernel_message", e->kernel_message)) < 0)
                return r;
        if ((r = json_array_from_strv(e->namespaces, &names)) < 0 || (r = json_add(o, "namespaces", names)) < 0 ||
            (r = json_array_from_strv(e->missing, &missing)) < 0 || (r = json_add(o, "missing", missing)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

int fabrics_report_result_json(const FabricsReconnectResult *r, json_object **ret) {
        _cleanup_json_ json_object *a = json_object_new_array();
        int k;

        if (!a)
                return -ENOMEM;
        for (size_t i = 0; r && i < r->n_entries; i++) {
                json_object *e;

                if ((k = entry_json(&r->entries[i], &e)) < 0 || (k = json_array_add(a, e)) < 0)
                        return k;
        }
        *ret = TAKE_PTR(a);
        return 0;
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
