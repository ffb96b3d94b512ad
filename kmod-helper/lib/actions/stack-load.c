/* SPDX-License-Identifier: Apache-2.0 */
/* Carrying out a load's plan (load-plan.h): each step inserted in order,
 * a few tries on a transient answer, each insert checked in /sys/module,
 * and on a failure the rollback that was asked for (load-removals.h). */
#include <errno.h>
#include <libkmod.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "actions/kmod-util.h"
#include "actions/load-plan.h"
#include "actions/load-prepare.h"
#include "actions/load-refusal.h"
#include "actions/load-removals.h"
#include "actions/module-live.h"
#include "actions/module-tree.h"
#include "actions/stack-load.h"
#include "host/host-kernel.h"
#include "host/kernel-target.h"
#include "util/macro.h"
#include "util/retry.h"
#include "util/strv.h"

/* Tries per module on EAGAIN/EBUSY: 10+20+40+80 ms between them. */
#define LOAD_BUSY_ATTEMPTS 5u

LoadResult *load_result_free(LoadResult *r) {
        if (!r)
                return NULL;
        for (size_t i = 0; i < r->n_modules; i++) {
                free(r->modules[i].name);
                free(r->modules[i].path);
        }
        free(r->modules);
        free(r->failed_module);
        free(r->failed_reason);
        strv_free(r->rolled_back);
        strv_free(r->replaced);
        strv_free(r->kept);
        free(r->rollback_stopped);
        free(r->release);
        free(r->tree);
        free(r);
        return NULL;
}


bool load_result_ok(const LoadResult *r) {
        return r && !r->failed_module;
}

static int record(LoadResult *res, const char *name, const char *path, bool already_loaded) {
        LoadedModule *n = reallocarray(res->modules, res->n_modules + 1, sizeof(*n));

        if (!n)
                return -ENOMEM;
        res->modules = n;
        n[res->n_modules] = (LoadedModule) {
                .name = strdup(name),
                .path = path ? strdup(path) : NULL,
                .already_loaded = already_loaded,
        };
        res->n_modules++;
        if (!n[res->n_modules - 1].name || (path && !n[res->n_modules - 1].path))
                return -ENOMEM;
        return 0;
}

/* finit_module() on the fd the modinfo was read from; the host's own
 * compressed files through libkmod, which decompresses them. */
static int step_insert(const LoadStep *s) {
        _cleanup_(kmod_module_unrefp) struct kmod_module *mod = NULL;
        int r;

        if (s->fd >= 0)
                return syscall(SYS_finit_module, s->fd, "", 0) < 0 ? -errno : 0;
        r = kmod_module_new_from_path(s->tree->ctx, s->entry->path, &mod);
        return r < 0 ? r : kmod_module_insert_module(mod, 0, NULL);
}

static int insert_attempt(void *userdata, unsigned attempt) {
        return step_insert(userdata);
}

/* The kernel took it: it must now be in /sys/module under the name we
 * checked, or the insert did not do what was asked (restore follows). */
static int check_inserted(LoadPlan *l, const LoadStep *s) {
        int r = module_is_present(s->name);

        if (r > 0) {
                r = record(l->result, s->name, s->entry->path, false);
                if (r >= 0)
                        l->result->modules[l->result->n_modules - 1].from_host = s->tree != l->tree;
                return r;
        }
        r = record(l->result, s->name, s->entry->path, false); /* so that a roll back tries it */
        if (r < 0)
                return r;
        return load_fail(l->result, s->name, ENOENT, "%s: the kernel accepted %s, but /sys/module/%s does not exist",
                         s->name, s->entry->path, s->name);
}

static int insert_one(LoadPlan *l, const LoadStep *s) {
        int r;

        r = load_past_deadline(l, s->name, "inserting it");
        if (r != 0)
                return r < 0 ? r : 0;
        /* Someone (udev, the driver container) may have loaded it meanwhile. */
        r = module_is_present(s->name);
        if (r < 0)
                return r;
        if (r > 0)
                return record(l->result, s->name, s->entry->path, true);

        r = 0;
        /* EAGAIN/EBUSY pass (a dependency still settling, the module of the
         * same name still going away): a few tries, as the unload does, so
         * that a restore does not leave the node without a driver for a
         * transient answer (found by tests/faults, rows
         * daemon:restore:<module>:EAGAIN|EBUSY). */
        if (r >= 0)
                r = retry_transient(&(RetryPolicy) { .attempts = LOAD_BUSY_ATTEMPTS, .first_ms = 10, .max_ms = 80 },
                                    insert_attempt, (void *) s);
        if (r == -EEXIST)
                return record(l->result, s->name, s->entry->path, true);
        if (r < 0) {
                _cleanup_free_ char *why = NULL;

                if (load_refusal_why(-r, &why) < 0)
                        return -ENOMEM;
                return load_fail(l->result, s->name, -r, "%s: loading %s failed: %s%s", s->name,
                                 s->entry->path, strerror(-r), why);
        }
        return check_inserted(l, s);
}

static int run(LoadPlan *l, const LoadOptions *opts, const char *release) {
        int r;

        r = load_plan_make(l, opts, release);
        if (r <= 0)
                return r;

        for (size_t i = 0; i < l->n_steps && !l->result->failed_module; i++) {
                const LoadStep *s = &l->steps[i];

                r = s->already_loaded ? record(l->result, s->name, NULL, true) : insert_one(l, s);
                if (r >= 0 && s->builtin)
                        l->result->modules[l->result->n_modules - 1].builtin = true;
                if (r < 0)
                        return r;
        }
        if (l->result->failed_module && opts && opts->rollback_on_failure)
                return load_roll_back(l->result, LOAD_BUSY_ATTEMPTS);
        return 0;
}

int stack_load(const LoadOptions *opts, LoadResult **ret) {
        _cleanup_(load_result_freep) LoadResult *res = NULL;
        _cleanup_free_ char *release = NULL;
        const char *why = NULL;
        LoadPlan l = {};
        int r;

        /* A fake root's decisions must never reach the real kernel. */
        r = kernel_target_check();
        if (r < 0)
                return r;
        r = host_kernel_release(&release);
        if (r < 0)
                return r;
        res = calloc(1, sizeof(*res));
        if (!res)
                return -ENOMEM;
        res->release = strdup(release);
        if (!res->release)
                return -ENOMEM;

        load_plan_start(&l, res, opts ? opts->timeout_sec : 0);
        r = load_plan_open_trees(&l, opts, release, &why);
        if (r == -EIO && why) {
                /* The parser child could not read the container's index: the
                 * load fails, as for a file it cannot read, and says why. */
                _cleanup_free_ char *display = NULL;
                const char *first = opts && opts->modules && opts->modules[0] ? opts->modules[0] : "nvme";

                r = load_tree_display(opts, &display);
                if (r >= 0)
                        r = load_fail(res, first, EIO, "%s: cannot read the index of %s: %s", first, display, why);
                if (r >= 0)
                        res->tree = TAKE_PTR(display);
        } else if (r >= 0) {
                res->tree = strdup(l.tree->dir);
                r = res->tree ? run(&l, opts, release) : -ENOMEM;
        }
        load_plan_done(&l);
        load_prepared_drop(); /* what was prepared is used once */
        if (r < 0)
                return r;

        *ret = TAKE_PTR(res);
        return 0;
}
