/* SPDX-License-Identifier: Apache-2.0 */
/* The JSON of the actions' results (report-json.h): what an unload and a
 * load did, for the CLI's --json and the daemon. The status documents (the
 * node as it is: modules, namespaces, usages, a plan) are report-json.c's. */
#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>

#include "actions/stack-load.h"
#include "actions/stack-unload.h"
#include "report/report-json.h"
#include "usage/usage-check.h"
#include "util/json-util.h"
#include "util/macro.h"

int report_unload_json(const UnloadResult *res, bool dry_run, struct json_object **ret) {
        _cleanup_json_ struct json_object *o = json_object_new_object();
        int r;

        if (!o)
                return -ENOMEM;
        if ((r = json_add_string(o, "outcome", unload_outcome_to_string(res->outcome))) < 0 ||
            (r = json_add_bool(o, "dry_run", dry_run)) < 0 ||
            (r = json_add_strv(o, "planned", res->planned)) < 0 ||
            (r = json_add_strv(o, "removed", res->removed)) < 0 ||
            (r = json_add_strv(o, "restored", res->restored)) < 0 ||
            (r = json_add_strv(o, "plan_blockers", res->plan_blockers)) < 0 ||
            (r = json_add_strv(o, "kept", res->kept)) < 0 ||
            (r = json_add_string(o, "failed_module", res->failed_module)) < 0 ||
            (r = json_add_errno(o, "failed_errno", "failed_error", res->failed_errno)) < 0 ||
            (r = json_add_string(o, "restore_failed_module", res->restore_failed_module)) < 0 ||
            (r = json_add_errno(o, "restore_failed_errno", "restore_failed_error",
                                res->restore_failed_errno)) < 0 ||
            (r = json_add_string(o, "restore_failed_reason", res->restore_failed_reason)) < 0 ||
            (r = json_add_bool(o, "in_use", res->usage && usage_report_in_use(res->usage))) < 0 ||
            (r = report_json_add_users(o, res->usage, NULL)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

static int loaded_json(const LoadedModule *m, struct json_object **ret) {
        _cleanup_json_ struct json_object *o = json_object_new_object();
        int r;

        if (!o)
                return -ENOMEM;
        if ((r = json_add_string(o, "name", m->name)) < 0 ||
            (r = json_add_string(o, "path", m->path)) < 0 ||
            (r = json_add_bool(o, "already_loaded", m->already_loaded)) < 0 ||
            (r = json_add_bool(o, "builtin", m->builtin)) < 0 ||
            (r = json_add_bool(o, "from_host", m->from_host)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}

int report_load_json(const LoadResult *res, struct json_object **ret) {
        _cleanup_json_ struct json_object *o = json_object_new_object();
        _cleanup_json_ struct json_object *mods = json_object_new_array();
        int r;

        if (!o || !mods)
                return -ENOMEM;
        for (size_t i = 0; i < res->n_modules; i++) {
                struct json_object *m;

                r = loaded_json(&res->modules[i], &m);
                if (r < 0)
                        return r;
                r = json_array_add(mods, m);
                if (r < 0)
                        return r;
        }
        if ((r = json_add_bool(o, "ok", load_result_ok(res))) < 0 ||
            (r = json_add_string(o, "tree", res->tree)) < 0 ||
            (r = json_add_string(o, "release", res->release)) < 0 ||
            (r = json_add(o, "modules", TAKE_PTR(mods))) < 0 ||
            (r = json_add_string(o, "failed_module", res->failed_module)) < 0 ||
            (r = json_add_errno(o, "failed_errno", "failed_error", res->failed_errno)) < 0 ||
            (r = json_add_string(o, "failed_reason", res->failed_reason)) < 0 ||
            (r = json_add_strv(o, "rolled_back", res->rolled_back)) < 0 ||
            (r = json_add_strv(o, "replaced", res->replaced)) < 0 ||
            (r = json_add_strv(o, "kept", res->kept)) < 0 ||
            (r = json_add_string(o, "rollback_stopped", res->rollback_stopped)) < 0)
                return r;
        *ret = TAKE_PTR(o);
        return 0;
}
