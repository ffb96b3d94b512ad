/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions/guarded-remove.h"
#include "actions/kmod-util.h"
#include "actions/load-removals.h"
#include "actions/module-live.h"
#include "host/host-root.h"
#include "modules/module-stack.h"
#include "usage/usage-check.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/parse-util.h"
#include "util/strv.h"

/* guarded_remove()'s stop values. */
#define ROLLBACK_IN_USE 2
#define SHARED_HELD 3

/* Tries on EAGAIN/EBUSY for a shared module: the stack that used it was
 * just removed, its last reference may still be going. */
#define SHARED_BUSY_ATTEMPTS 5u

#define KERNEL_REFUSED "the kernel refused to remove it: "

typedef struct SharedCheck {
        char *why; /* why it stays: set by the check that stopped */
} SharedCheck;

/* Why the module cannot go now, or NULL when it is free: the kernel would
 * refuse the removal anyway, but the operator wants the name of the user. */
static int shared_in_use(const char *name, char **ret_why) {
        _cleanup_strv_free_ char **holders = NULL;
        _cleanup_free_ char *path = NULL, *refcnt = NULL, *list = NULL;
        int r, n = -1;

        r = host_pathf(&path, "/sys/module/%s/holders", name);
        if (r < 0)
                return r;
        r = read_dir_names(path, &holders);
        if (r < 0 && r != -ENOENT && r != -ENOTDIR)
                return r;
        r = module_sysfs_attr_read(name, "refcnt", &refcnt);
        if (r < 0)
                return r;
        *ret_why = NULL;
        if (holders && holders[0]) {
                strv_sort(holders);
                list = strv_join(holders, ", ");
                if (!list)
                        return -ENOMEM;
                return asprintf(ret_why, "held by %s", list) < 0 ? -ENOMEM : 0;
        }
        if (!refcnt || safe_atoi(refcnt, &n) < 0)
                return asprintf(ret_why, "its reference count cannot be read") < 0 ? -ENOMEM : 0;
        if (n > 0)
                return asprintf(ret_why, "in use (%d reference(s), no module holds it)", n) < 0 ? -ENOMEM : 0;
        return 0;
}

static int shared_check(void *userdata, const char *module) {
        SharedCheck *c = userdata;
        int r;

        r = module_is_present(module);
        if (r <= 0)
                return r < 0 ? r : GUARDED_CHECK_GONE;
        free(c->why);
        c->why = NULL;
        r = shared_in_use(module, &c->why);
        if (r < 0)
                return r;
        return c->why ? SHARED_HELD : GUARDED_CHECK_GO;
}

int shared_module_remove(const char *name, char **ret_why) {
        _cleanup_(kmod_unrefp) struct kmod_ctx *ctx = kmod_new_quiet(NULL);
        SharedCheck c = {};
        int r;

        *ret_why = NULL;
        if (!ctx)
                return -ENOMEM;
        r = guarded_remove(ctx, name, SHARED_BUSY_ATTEMPTS, shared_check, &c);
        if (r == SHARED_HELD) {
                *ret_why = c.why;
                return 0;
        }
        free(c.why);
        if (r == -EAGAIN || r == -EBUSY || r == -EWOULDBLOCK) {
                /* Still used after the tries: kept, as a holder would keep it. */
                return asprintf(ret_why, KERNEL_REFUSED "%s", strerror(-r)) < 0 ? -ENOMEM : 0;
        }
        return r < 0 ? r : 1;
}

int load_shared_release(const char *name, bool from_container, char **ret_why) {
        _cleanup_free_ char *taint = NULL, *why = NULL;
        int r;

        *ret_why = NULL;
        r = module_sysfs_attr_read(name, "taint", &taint);
        if (r < 0)
                return r;
        /* The host's tree replaces only an out-of-tree build (an earlier
         * container's nvme_auth, left after its stack went): its own
         * in-tree module is what a restore wants. */
        if (!from_container && !(taint && strchr(taint, 'O')))
                return 0;
        r = shared_module_remove(name, &why);
        if (r != 0)
                return r;
        /* An out-of-tree build in use is most likely this container's own
         * (mlx_compat, loaded by its openibd): kept without a word. The
         * host's build kept under NVIDIA's stack is worth one. */
        if (!(taint && strchr(taint, 'O')) || (why && strncmp(why, KERNEL_REFUSED, strlen(KERNEL_REFUSED)) == 0))
                *ret_why = TAKE_PTR(why);
        return 0;
}

/* A rollback step's check, right before each attempt: a namespace the
 * half-loaded build already drives may have been mounted meanwhile (udev
 * and systemd mount what appears); then the rollback stops there, and the
 * build stays: some driver under a mounted filesystem is better than none. */
static int rollback_check(void *userdata, const char *module) {
        LoadResult *res = userdata;
        _cleanup_free_ char *why = NULL;
        UsageReport *usage = NULL;
        int r;

        r = module_is_present(module);
        if (r <= 0)
                return r < 0 ? r : GUARDED_CHECK_GONE;
        r = usage_check(&usage);
        if (r < 0)
                return r;
        if (!usage_report_in_use(usage)) {
                usage_report_free(usage);
                return GUARDED_CHECK_GO;
        }
        r = usage_describe(&usage->usages[0], &why);
        usage_report_free(usage);
        if (r < 0)
                return r;
        free(res->rollback_stopped);
        if (asprintf(&res->rollback_stopped, "not removing %s: %s", module, why) < 0)
                res->rollback_stopped = NULL;
        return ROLLBACK_IN_USE;
}

int load_roll_back(LoadResult *res, unsigned attempts) {
        _cleanup_(kmod_unrefp) struct kmod_ctx *ctx = kmod_new_quiet(NULL);
        int r;

        if (!ctx)
                return -ENOMEM;
        res->rolled_back = strv_new_empty();
        if (!res->rolled_back)
                return -ENOMEM;
        for (size_t i = res->n_modules; i > 0; i--) {
                const LoadedModule *m = &res->modules[i - 1];

                if (m->already_loaded)
                        continue;
                r = guarded_remove(ctx, m->name, attempts, rollback_check, res);
                if (r == -ENOMEM)
                        return r;
                if (r == ROLLBACK_IN_USE)
                        break;
                if (r < 0)
                        continue;
                r = strv_extend(&res->rolled_back, m->name);
                if (r < 0)
                        return r;
        }
        return 0;
}
