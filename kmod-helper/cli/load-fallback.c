/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions/stack-load.h"
#include "cli-fabrics-report.h"
#include "load-fallback.h"
#include "report/report-json.h"
#include "report/report-text.h"
#include "util/json-util.h"
#include "util/macro.h"

typedef enum RestoreOutcome {
        RESTORE_NOT_NEEDED,   /* the load succeeded */
        RESTORE_DONE,         /* the in-tree stack is loaded again */
        RESTORE_FAILED,       /* tried, the kernel or the host tree refused */
        RESTORE_SKIPPED,      /* --no-restore */
        RESTORE_HELD,         /* the rollback stopped at a namespace in use */
} RestoreOutcome;

static const char *const restore_names[] = {
        [RESTORE_NOT_NEEDED] = "not-needed", [RESTORE_DONE] = "restored", [RESTORE_FAILED] = "failed",
        [RESTORE_SKIPPED] = "skipped",       [RESTORE_HELD] = "held",
};

typedef struct Fallback {
        const LoadFallbackOptions *opts;
        LoadResult *load;       /* NULL when the request itself was impossible */
        int load_error;         /* negative errno of that */
        LoadResult *restore;    /* NULL when not tried */
        int restore_error;
        RestoreOutcome outcome;
} Fallback;

static void fallback_done(Fallback *f) {
        load_result_free(f->load);
        load_result_free(f->restore);
}

static int run(const LoadFallbackOptions *o, const char *tree, bool rollback, LoadResult **ret) {
        LoadOptions opts = {
                .module_tree = tree,
                .modules = o->modules,
                .timeout_sec = tree ? o->timeout_sec : 0, /* the restore keeps the library's deadline */
                .rollback_on_failure = rollback,
        };

        return stack_load(&opts, ret);
}

static void decide_and_restore(Fallback *f) {
        f->load_error = run(f->opts, f->opts->from, true, &f->load);
        if (f->load_error >= 0 && load_result_ok(f->load)) {
                f->outcome = RESTORE_NOT_NEEDED;
                return;
        }
        if (f->opts->no_restore) {
                f->outcome = RESTORE_SKIPPED;
                return;
        }
        if (f->load && f->load->rollback_stopped) {
                f->outcome = RESTORE_HELD;
                return;
        }
        f->restore_error = run(f->opts, NULL, false, &f->restore);
        f->outcome = f->restore_error >= 0 && load_result_ok(f->restore) ? RESTORE_DONE : RESTORE_FAILED;
}

/* The fabrics connections the unload dropped come back through the build
 * that is now loaded: the tree's after a load, the host's after a restore. */
static void reconnect_fabrics(const Fallback *f) {
        if (!f->opts->fabrics)
                return;
        if (f->outcome == RESTORE_NOT_NEEDED)
                cli_fabrics_after_load(f->opts->fabrics, f->opts->from);
        else if (f->outcome == RESTORE_DONE)
                cli_fabrics_after_load(f->opts->fabrics, NULL);
}

static bool inserted_any(const LoadResult *r) {
        for (size_t i = 0; r && i < r->n_modules; i++)
                if (!r->modules[i].already_loaded)
                        return true;
        return false;
}

/* The one line that says what happened to the node, for the text report. */
static void print_verdict(const Fallback *f, FILE *out) {
        const char *from = f->opts->from;

        switch (f->outcome) {
        case RESTORE_DONE:
                fprintf(out, "restored: the in-tree NVMe stack is loaded%s, because the load from %s failed "
                        "(--no-restore leaves the node as a failed load leaves it)\n",
                        inserted_any(f->restore) ? " again" : " (it was still there)", from);
                break;
        case RESTORE_FAILED:
                fprintf(out, "not restored: the in-tree stack could not be loaded again after the failed load "
                        "from %s; this node may have no NVMe driver: fix the cause above and run `%s restore`\n",
                        from, f->opts->program);
                break;
        case RESTORE_SKIPPED:
                fprintf(out, "not restored (--no-restore): the node is as the failed load left it; run `%s "
                        "restore` to load the in-tree stack\n", f->opts->program);
                break;
        case RESTORE_HELD:
                fprintf(out, "not restored: a namespace in use is served by the modules of the new build left "
                        "loaded (%s); take it out of use, then run `%s restore`\n", f->load->rollback_stopped,
                        f->opts->program);
                break;
        default:
                break;
        }
}

static int print_text(const Fallback *f) {
        FILE *out = stdout;
        int r;

        if (f->load_error < 0)
                fprintf(out, "failed: cannot load from %s: %s\n", f->opts->from, strerror(-f->load_error));
        else if ((r = report_load_text(f->load, out)) < 0)
                return r;
        if (f->outcome == RESTORE_DONE || f->outcome == RESTORE_FAILED) {
                fputs("restoring the in-tree stack from the host's module tree:\n", out);
                if (f->restore_error < 0)
                        fprintf(out, "failed: cannot load the host's module tree: %s\n", strerror(-f->restore_error));
                else if ((r = report_load_text(f->restore, out)) < 0)
                        return r;
        }
        print_verdict(f, out);
        if (f->opts->fabrics && (r = cli_fabrics_text(f->opts->fabrics, out)) < 0)
                return r;
        return ferror(out) ? -EIO : 0;
}

/* --json: the load's object, plus "restore": {"outcome", "result"} and,
 * when the request itself failed, "error". */
static int print_json(const Fallback *f) {
        _cleanup_json_ struct json_object *o = NULL, *restore = json_object_new_object();
        struct json_object *result = NULL;
        int r;

        if (!restore)
                return -ENOMEM;
        if (f->load)
                r = report_load_json(f->load, &o);
        else {
                o = json_object_new_object();
                r = !o || json_add(o, "ok", json_object_new_boolean(false)) < 0 ||
                                    json_add(o, "error", json_object_new_string(strerror(-f->load_error))) < 0
                            ? -ENOMEM
                            : 0;
        }
        if (r < 0)
                return r;
        if (f->restore && (r = report_load_json(f->restore, &result)) < 0)
                return r;
        if (json_add(restore, "outcome", json_object_new_string(restore_names[f->outcome])) < 0 ||
            json_add(restore, "result", result) < 0 || json_add(o, "restore", TAKE_PTR(restore)) < 0)
                return -ENOMEM;
        if (f->opts->fabrics && (r = cli_fabrics_json(f->opts->fabrics, o)) < 0)
                return r;
        return report_json_print(o, stdout);
}

int load_with_fallback(const LoadFallbackOptions *o) {
        _cleanup_(fallback_done) Fallback f = { .opts = o };
        int r;

        decide_and_restore(&f);
        reconnect_fabrics(&f);
        r = o->json ? print_json(&f) : print_text(&f);
        if (r < 0)
                fprintf(stderr, "%s: cannot write the report: %s\n", o->program, strerror(-r));
        switch (f.outcome) {
        case RESTORE_NOT_NEEDED:
                return r < 0 || (o->fabrics && !cli_fabrics_ok(o->fabrics)) ? EXIT_FAILURE : EXIT_SUCCESS;
        case RESTORE_FAILED:
        case RESTORE_HELD:
                return EXIT_NOT_RESTORED;
        default:
                return EXIT_FAILURE;
        }
}
