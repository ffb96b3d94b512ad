/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>

#include "actions/guarded-remove.h"
#include "actions/kmod-util.h"
#include "actions/module-live.h"
#include "util/retry.h"

/* 10, 20, 40, 80 ms...: a module still settling (EBUSY while coming or
 * going, EAGAIN for a reference being dropped) gets about 150 ms with five
 * attempts; a real user of the module does not go away that fast. */
#define GUARDED_BACKOFF_FIRST_MS 10u
#define GUARDED_BACKOFF_MAX_MS 100u

typedef struct GuardedRemove {
        struct kmod_ctx *ctx;
        const char *module;
        GuardedCheckFn check;
        void *userdata;
} GuardedRemove;

static int attempt(void *userdata, unsigned n) {
        GuardedRemove *g = userdata;
        _cleanup_(kmod_module_unrefp) struct kmod_module *mod = NULL;
        int r;

        r = g->check ? g->check(g->userdata, g->module) : GUARDED_CHECK_GO;
        if (r == GUARDED_CHECK_GONE)
                return 0;
        if (r != GUARDED_CHECK_GO)
                return r;
        r = kmod_module_new_from_name(g->ctx, g->module, &mod);
        if (r < 0)
                return r;
        r = kmod_module_remove_module(mod, 0);
        if (r == -ENOENT)
                return module_is_present(g->module) == 0 ? 0 : r;
        return r < 0 ? r : 0;
}

int guarded_remove(struct kmod_ctx *ctx, const char *module, unsigned attempts, GuardedCheckFn check,
                   void *userdata) {
        GuardedRemove g = { .ctx = ctx, .module = module, .check = check, .userdata = userdata };
        RetryPolicy p = { .attempts = attempts ?: 1, .first_ms = GUARDED_BACKOFF_FIRST_MS,
                          .max_ms = GUARDED_BACKOFF_MAX_MS };

        return retry_transient(&p, attempt, &g);
}
