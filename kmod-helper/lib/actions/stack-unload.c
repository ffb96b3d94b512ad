/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <libkmod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions/guarded-remove.h"
#include "actions/kmod-util.h"
#include "actions/load-removals.h"
#include "actions/module-live.h"
#include "actions/stack-load.h"
#include "actions/stack-unload.h"
#include "host/kernel-target.h"
#include "modules/module-stack.h"
#include "modules/removal-plan.h"
#include "usage/claim-hold.h"
#include "util/macro.h"
#include "util/strv.h"

#define UNLOAD_BUSY_ATTEMPTS_DEFAULT 5u


static const char *const outcome_table[_UNLOAD_OUTCOME_MAX] = {
        [UNLOAD_OUTCOME_REMOVED] = "removed",
        [UNLOAD_OUTCOME_NOT_LOADED] = "not-loaded",
        [UNLOAD_OUTCOME_WOULD_REMOVE] = "would-remove",
        [UNLOAD_OUTCOME_REFUSED_IN_USE] = "refused-in-use",
        [UNLOAD_OUTCOME_REFUSED_BLOCKED] = "refused-blocked",
        [UNLOAD_OUTCOME_FAILED_RESTORED] = "failed-restored",
        [UNLOAD_OUTCOME_FAILED_UNRESTORED] = "failed-unrestored",
};

const char *unload_outcome_to_string(UnloadOutcome o) {
        return o >= 0 && o < _UNLOAD_OUTCOME_MAX ? outcome_table[o] : NULL;
}

UnloadOutcome unload_outcome_from_string(const char *s) {
        for (int i = 0; s && i < _UNLOAD_OUTCOME_MAX; i++)
                if (streq(outcome_table[i], s))
                        return i;
        return _UNLOAD_OUTCOME_INVALID;
}

UnloadResult *unload_result_free(UnloadResult *r) {
        if (!r)
                return NULL;
        strv_free(r->planned);
        strv_free(r->removed);
        strv_free(r->restored);
        strv_free(r->plan_blockers);
        strv_free(r->kept);
        free(r->failed_module);
        usage_report_free(r->usage);
        free(r->restore_failed_module);
        free(r->restore_failed_reason);
        free(r);
        return NULL;
}


static int result_new(UnloadResult **ret) {
        _cleanup_(unload_result_freep) UnloadResult *r = calloc(1, sizeof(*r));

        if (!r)
                return -ENOMEM;
        r->planned = strv_new_empty();
        r->removed = strv_new_empty();
        r->restored = strv_new_empty();
        r->plan_blockers = strv_new_empty();
        r->kept = strv_new_empty();
        if (!r->planned || !r->removed || !r->restored || !r->plan_blockers || !r->kept)
                return -ENOMEM;
        *ret = TAKE_PTR(r);
        return 0;
}

static void replace_usage(UnloadResult *res, UsageReport *u) {
        usage_report_free(res->usage);
        res->usage = u;
}

static int replace_blockers(UnloadResult *res, char **blockers) {
        char **copy;
        int r;

        r = strv_copy(blockers, &copy);
        if (r < 0)
                return r;
        strv_free(res->plan_blockers);
        res->plan_blockers = copy;
        return 0;
}

typedef enum Recheck {
        RECHECK_GO = GUARDED_CHECK_GO,
        RECHECK_GONE = GUARDED_CHECK_GONE,
        RECHECK_IN_USE,
        RECHECK_BLOCKED,
} Recheck;

/* One unload's removals: the result being written and our own exclusive
 * claims on the namespaces (claim-hold.h), held across the removals. */
typedef struct Unloader {
        UnloadResult *res;
        ClaimHold *hold;
        char *const *recorded; /* UnloadOptions.recorded */
        char **shared;         /* the plan's shared modules of the build (removal-plan.h) */
} Unloader;

/* Right before each attempt to remove `name` (the first and every retry):
 * is the world still what the plan assumed? */
static int recheck(UnloadResult *res, const ClaimHold *hold, char *const *recorded, const char *name,
                   Recheck *ret) {
        _cleanup_(module_stack_freep) ModuleStack *stack = NULL;
        _cleanup_(removal_plan_freep) RemovalPlan *plan = NULL;
        _cleanup_strv_free_ char **held = NULL;
        UsageReport *usage = NULL;
        const ModuleInfo *m;
        int r;

        r = module_stack_read_with(MODULE_STACK_READ_DECIDE, &stack);
        if (r < 0)
                return r;
        m = module_stack_find(stack, name);
        if (!m || !m->loaded) {
                *ret = RECHECK_GONE;
                return 0;
        }
        /* Our own claims hold references: not users to wait for. */
        claim_hold_discount(hold, stack);

        r = claim_hold_devices(hold, &held);
        if (r < 0)
                return r;
        r = usage_check_holding(held, &usage);
        if (r < 0)
                return r;
        replace_usage(res, usage);
        if (usage_report_in_use(usage)) {
                *ret = RECHECK_IN_USE;
                return 0;
        }

        r = removal_plan_build_with(stack, recorded, &plan);
        if (r < 0)
                return r;
        if (plan->blockers && plan->blockers[0]) {
                *ret = RECHECK_BLOCKED;
                return replace_blockers(res, plan->blockers);
        }
        if (m->n_holders > 0) {
                /* A holder appeared after the plan was made (someone loaded
                 * nvme_tcp meanwhile): removing would fail; stop cleanly. */
                _cleanup_free_ char *why = NULL;

                if (asprintf(&why, "%s is now held by %s, loaded after the removal plan was made", name,
                             m->holders[0]) < 0)
                        return -ENOMEM;
                *ret = RECHECK_BLOCKED;
                return strv_push(&res->plan_blockers, TAKE_PTR(why));
        }
        *ret = RECHECK_GO;
        return 0;
}

/* guarded_remove()'s check: a recheck error is the module's failure. */
static int recheck_before_attempt(void *userdata, const char *name) {
        Unloader *u = userdata;
        Recheck c = RECHECK_GO;
        int r;

        r = recheck(u->res, u->hold, u->recorded, name, &c);
        return r < 0 ? r : (int) c;
}

/* Loads back, from the host tree, what this run removed, newest first. */
static int put_back(UnloadResult *res) {
        _cleanup_(load_result_freep) LoadResult *load = NULL;
        _cleanup_strv_free_ char **wanted = NULL;
        size_t n = strv_length(res->removed);
        LoadOptions opts = {};
        int r;

        if (n == 0)
                return 0;
        wanted = strv_new_empty();
        r = wanted ? 0 : -ENOMEM;
        for (size_t i = n; r >= 0 && i > 0; i--)
                r = strv_extend(&wanted, res->removed[i - 1]);
        if (r < 0)
                return r;

        opts.modules = wanted;
        r = stack_load(&opts, &load);
        if (r < 0) {
                res->restore_failed_errno = -r;
                return asprintf(&res->restore_failed_reason, "cannot load from the host tree: %s",
                                strerror(-r)) < 0 ? -ENOMEM : 1;
        }
        for (size_t i = 0; i < load->n_modules; i++)
                if (!load->modules[i].already_loaded) {
                        r = strv_extend(&res->restored, load->modules[i].name);
                        if (r < 0)
                                return r;
                }
        if (!load->failed_module)
                return 0;

        res->restore_failed_module = TAKE_PTR(load->failed_module);
        res->restore_failed_errno = load->failed_errno;
        res->restore_failed_reason = TAKE_PTR(load->failed_reason);
        return 1;
}

/* A shared module of the build, once what held it is gone: no namespace
 * is under it (the stack that drove them went first), so the check is the
 * module's own: nothing holds or uses it (load-removals.h). One that stays
 * is named, never a failure of the unload. */
static int remove_shared(UnloadResult *res, const char *name) {
        _cleanup_free_ char *why = NULL;
        int r;

        r = shared_module_remove(name, &why);
        if (r < 0 && r != -ENOMEM) {
                why = NULL;
                if (asprintf(&why, "cannot remove it: %s", strerror(-r)) < 0)
                        return -ENOMEM;
                r = 0;
        }
        if (r < 0)
                return r;
        if (r > 0)
                return strv_extend(&res->removed, name);
        return strv_extendf(&res->kept, "%s: %s", name, why ?: "kept");
}

/* Removes the plan's modules in order, each guarded by a recheck before
 * every attempt. The exclusive claims on the namespaces are taken first
 * and closed module by module: a plain namespace's right before its
 * transport goes (its open pins the transport), the rest right before
 * nvme_core, whose recheck then probes every namespace again. */
static int remove_planned(Unloader *u, struct kmod_ctx *ctx, unsigned attempts, UnloadOutcome *ret_stop) {
        UnloadResult *res = u->res;

        for (char **m = res->planned; *m; m++) {
                int r;

                if (strv_contains(u->shared, *m)) {
                        r = remove_shared(res, *m);
                        if (r < 0)
                                return r;
                        continue;
                }
                (void) claim_hold_release_pinning(u->hold, *m);
                r = guarded_remove(ctx, *m, attempts, recheck_before_attempt, u);
                if (r == -ENOMEM)
                        return r;
                if (r == RECHECK_IN_USE || r == RECHECK_BLOCKED) {
                        *ret_stop = r == RECHECK_IN_USE ? UNLOAD_OUTCOME_REFUSED_IN_USE
                                                        : UNLOAD_OUTCOME_REFUSED_BLOCKED;
                        return 0;
                }
                if (r < 0) {
                        res->failed_module = strdup(*m);
                        res->failed_errno = -r;
                        *ret_stop = UNLOAD_OUTCOME_FAILED_RESTORED;
                        return 0;
                }
                if (strv_extend(&res->removed, *m) < 0)
                        return -ENOMEM;
        }
        *ret_stop = UNLOAD_OUTCOME_REMOVED;
        return 0;
}

static int remove_all(UnloadResult *res, const UnloadOptions *opts, char **shared) {
        _cleanup_(kmod_unrefp) struct kmod_ctx *ctx = kmod_new_quiet(NULL);
        _cleanup_(claim_hold_freep) ClaimHold *hold = NULL;
        unsigned attempts = opts && opts->busy_attempts ? opts->busy_attempts : UNLOAD_BUSY_ATTEMPTS_DEFAULT;
        UnloadOutcome stop = UNLOAD_OUTCOME_REMOVED;
        Unloader u = { .res = res, .recorded = opts ? opts->recorded : NULL, .shared = shared };
        int r;

        if (!ctx)
                return -ENOMEM;
        r = claim_hold_take(res->usage->devices, &hold);
        if (r < 0)
                return r;
        u.hold = hold;
        r = remove_planned(&u, ctx, attempts, &stop);
        /* Before anything is put back: a multipath head still held open
         * would keep its instance, and the reloaded one would get a new name. */
        hold = claim_hold_free(hold);
        if (r < 0)
                return r;
        if (stop == UNLOAD_OUTCOME_REMOVED) {
                res->outcome = UNLOAD_OUTCOME_REMOVED;
                return 0;
        }
        r = put_back(res);
        if (r < 0)
                return r;
        res->outcome = r > 0 ? UNLOAD_OUTCOME_FAILED_UNRESTORED : stop;
        return 0;
}

int stack_unload(const UnloadOptions *opts, UnloadResult **ret) {
        return stack_unload_checked(opts, NULL, ret);
}

int stack_unload_checked(const UnloadOptions *opts, UsageReport *checked, UnloadResult **ret) {
        _cleanup_(usage_report_freep) UsageReport *usage = checked;
        _cleanup_(unload_result_freep) UnloadResult *res = NULL;
        _cleanup_(module_stack_freep) ModuleStack *stack = NULL;
        _cleanup_(removal_plan_freep) RemovalPlan *plan = NULL;
        int r;

        /* A fake root's decisions must never reach the real kernel (trust). */
        if (!(opts && opts->dry_run) && kernel_target_check() < 0)
                return -EPERM;
        r = result_new(&res);
        if (r < 0)
                return r;
        r = module_stack_read_with(MODULE_STACK_READ_DECIDE, &stack);
        if (r < 0)
                return r;
        r = removal_plan_build_with(stack, opts ? opts->recorded : NULL, &plan);
        if (r < 0)
                return r;
        res->kept = strv_free(res->kept);
        r = strv_copy(plan->kept, &res->kept);
        if (r < 0)
                return r;
        strv_free(res->planned);
        res->planned = NULL;
        r = strv_copy(plan->order, &res->planned);
        if (r < 0)
                return r;
        r = replace_blockers(res, plan->blockers);
        if (r < 0)
                return r;
        if (!module_stack_any_loaded(stack) || !res->planned[0]) {
                res->outcome = UNLOAD_OUTCOME_NOT_LOADED;
                *ret = TAKE_PTR(res);
                return 0;
        }

        /* The caller's check, made just before (the daemon refuses on it
         * with its pin still held), is this one: the re-check right before
         * every removal reads the usage again whatever was passed here. */
        if (usage)
                res->usage = TAKE_PTR(usage);
        else if ((r = usage_check(&res->usage)) < 0)
                return r;
        if (usage_report_in_use(res->usage))
                res->outcome = UNLOAD_OUTCOME_REFUSED_IN_USE;
        else if (res->plan_blockers[0])
                res->outcome = UNLOAD_OUTCOME_REFUSED_BLOCKED;
        else if (opts && opts->dry_run)
                res->outcome = UNLOAD_OUTCOME_WOULD_REMOVE;
        else {
                /* The stack read and the usage check above hold no libnvme
                 * handle (sysfs and /proc only): nothing of ours pins a module. */
                r = remove_all(res, opts, plan->shared);
                if (r < 0)
                        return r;
        }

        *ret = TAKE_PTR(res);
        return 0;
}
