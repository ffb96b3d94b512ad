/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <libkmod.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "actions/kmod-util.h"
#include "actions/module-live.h"
#include "actions/module-tree.h"
#include "actions/stack-load.h"
#include "host/host-kernel.h"
#include "host/host-root.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

/* Far deeper than any real module graph: only a cycle gets there. */
#define LOAD_MAX_DEPTH 32
/* Tries per module on EAGAIN/EBUSY: 10+20+40+80 ms between them. */
#define LOAD_BUSY_ATTEMPTS 5u

typedef struct LoadStep {
        char *name;
        const ModuleTreeEntry *entry; /* NULL when already loaded */
        const ModuleTree *tree;
        bool already_loaded;
} LoadStep;

typedef struct Loader {
        ModuleTree *tree;  /* the tree asked for */
        ModuleTree *host;  /* the host's tree; NULL when it is the same or missing */
        LoadStep *steps;   /* in load order */
        size_t n_steps;
        LoadResult *result;
} Loader;

static void loader_done(Loader *l) {
        for (size_t i = 0; i < l->n_steps; i++)
                free(l->steps[i].name);
        free(l->steps);
        module_tree_free(l->tree);
        module_tree_free(l->host);
}

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
        free(r->release);
        free(r->tree);
        free(r);
        return NULL;
}


bool load_result_ok(const LoadResult *r) {
        return r && !r->failed_module;
}

_printf_(4, 5)
static int load_fail(LoadResult *res, const char *module, int error, const char *fmt, ...) {
        va_list ap;
        int r;

        free(res->failed_module);
        free(res->failed_reason);
        res->failed_reason = NULL;
        res->failed_module = strdup(module);
        res->failed_errno = error;
        va_start(ap, fmt);
        r = vasprintf(&res->failed_reason, fmt, ap);
        va_end(ap);
        if (r < 0)
                res->failed_reason = NULL;
        return res->failed_module && res->failed_reason ? 0 : -ENOMEM;
}

static const LoadStep *find_step(const Loader *l, const char *name) {
        for (size_t i = 0; i < l->n_steps; i++)
                if (streq(l->steps[i].name, name))
                        return &l->steps[i];
        return NULL;
}

static int add_step(Loader *l, const char *name, const ModuleTree *tree, const ModuleTreeEntry *e,
                    bool already_loaded) {
        LoadStep *n = reallocarray(l->steps, l->n_steps + 1, sizeof(*n));

        if (!n)
                return -ENOMEM;
        l->steps = n;
        l->steps[l->n_steps] = (LoadStep) { strdup(name), e, tree, already_loaded };
        if (!l->steps[l->n_steps].name)
                return -ENOMEM;
        l->n_steps++;
        return 0;
}

/* Depth-first: every dependency gets its step before the module itself.
 * Returns 1 when resolved, 0 when the result records why not, -errno. */
static int resolve(Loader *l, const char *name, unsigned depth) {
        _cleanup_strv_free_ char **modinfo_deps = NULL;
        const ModuleTree *tree = l->tree;
        const ModuleTreeEntry *e;
        int r;

        if (find_step(l, name))
                return 1;
        if (depth > LOAD_MAX_DEPTH) {
                r = load_fail(l->result, name, ELOOP, "%s: dependency cycle in %s", name, l->tree->dir);
                return r < 0 ? r : 0;
        }

        r = module_is_present(name);
        if (r < 0)
                return r;
        if (r > 0)
                return add_step(l, name, NULL, NULL, true) < 0 ? -ENOMEM : 1;

        e = module_tree_find(l->tree, name);
        if (!e) {
                tree = l->host;
                e = module_tree_find(l->host, name);
        }
        if (!e) {
                r = load_fail(l->result, name, ENOENT, "%s: not found in %s%s%s", name, l->tree->dir,
                              l->host ? " nor in " : "", l->host ? l->host->dir : "");
                return r < 0 ? r : 0;
        }

        /* modules.dep and the module's own modinfo: a container's depmod
         * leaves out the dependencies its tree lacks. */
        r = module_tree_modinfo_depends(tree, e->path, &modinfo_deps);
        if (r < 0 && r != -ENOMEM)
                modinfo_deps = NULL; /* unreadable: the vermagic check will say so */
        else if (r < 0)
                return r;
        STRV_FOREACH(d, e->depends) {
                r = resolve(l, *d, depth + 1);
                if (r <= 0)
                        return r;
        }
        STRV_FOREACH(d, modinfo_deps) {
                r = resolve(l, *d, depth + 1);
                if (r <= 0)
                        return r;
        }
        return add_step(l, name, tree, e, false) < 0 ? -ENOMEM : 1;
}

static int module_vermagic(const LoadStep *s, char **ret) {
        _cleanup_(kmod_module_unrefp) struct kmod_module *mod = NULL;
        _cleanup_(kmod_module_info_free_listp) struct kmod_list *info = NULL;
        struct kmod_list *i;
        int r;

        r = kmod_module_new_from_path(s->tree->ctx, s->entry->path, &mod);
        if (r < 0)
                return r;
        r = kmod_module_get_info(mod, &info);
        if (r < 0)
                return r;
        kmod_list_foreach(i, info)
                if (streq(kmod_module_info_get_key(i), "vermagic")) {
                        const char *v = kmod_module_info_get_value(i);

                        *ret = strndup(v, strcspn(v, " "));
                        return *ret ? 0 : -ENOMEM;
                }
        *ret = NULL;
        return 0;
}

/* Before anything is inserted: a module built for another kernel would be
 * refused by the kernel with ENOEXEC half-way through the stack. */
static int check_vermagic(Loader *l, const char *release) {
        for (size_t i = 0; i < l->n_steps; i++) {
                const LoadStep *s = &l->steps[i];
                _cleanup_free_ char *vermagic = NULL;
                int r;

                if (s->already_loaded)
                        continue;
                r = module_vermagic(s, &vermagic);
                if (r < 0)
                        return load_fail(l->result, s->name, -r, "%s: cannot read %s: %s", s->name,
                                         s->entry->path, strerror(-r));
                if (!vermagic || !streq(vermagic, release))
                        return load_fail(l->result, s->name, ENOEXEC,
                                         "%s: %s was built for kernel %s, the running kernel is %s",
                                         s->name, s->entry->path, vermagic ? vermagic : "(no vermagic)",
                                         release);
        }
        return 0;
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

static int insert_one(Loader *l, const LoadStep *s) {
        _cleanup_(kmod_module_unrefp) struct kmod_module *mod = NULL;
        int r;

        /* Someone (udev, the driver container) may have loaded it meanwhile. */
        r = module_is_present(s->name);
        if (r < 0)
                return r;
        if (r > 0)
                return record(l->result, s->name, s->entry->path, true);

        r = kmod_module_new_from_path(s->tree->ctx, s->entry->path, &mod);
        /* EAGAIN/EBUSY pass (a dependency still settling, the module of the
         * same name still going away): a few tries, as the unload does, so
         * that a restore does not leave the node without a driver for a
         * transient answer (found by tests/faults, rows
         * daemon:restore:<module>:EAGAIN|EBUSY). */
        for (unsigned i = 1, backoff_ms = 10; r >= 0; i++, backoff_ms *= 2) {
                r = kmod_module_insert_module(mod, 0, NULL);
                if ((r != -EAGAIN && r != -EBUSY) || i >= LOAD_BUSY_ATTEMPTS)
                        break;
                r = 0;
                (void) nanosleep(&(struct timespec) { .tv_nsec = (long) backoff_ms * 1000000L }, NULL);
        }
        if (r == -EEXIST)
                return record(l->result, s->name, s->entry->path, true);
        if (r < 0) {
                const char *why = r == -EKEYREJECTED ? " (signature rejected by the kernel)" :
                                  r == -ENOEXEC ? " (rejected as invalid for this kernel)" : "";

                return load_fail(l->result, s->name, -r, "%s: loading %s failed: %s%s", s->name,
                                 s->entry->path, strerror(-r), why);
        }
        return record(l->result, s->name, s->entry->path, false);
}

/* Undo this call's inserts, newest first; best effort, each one recorded. */
static int roll_back(LoadResult *res) {
        _cleanup_(kmod_unrefp) struct kmod_ctx *ctx = kmod_new_quiet(NULL);
        int r;

        if (!ctx)
                return -ENOMEM;
        res->rolled_back = strv_new_empty();
        if (!res->rolled_back)
                return -ENOMEM;
        for (size_t i = res->n_modules; i > 0; i--) {
                _cleanup_(kmod_module_unrefp) struct kmod_module *mod = NULL;
                const LoadedModule *m = &res->modules[i - 1];

                if (m->already_loaded)
                        continue;
                if (kmod_module_new_from_name(ctx, m->name, &mod) < 0)
                        continue;
                if (kmod_module_remove_module(mod, 0) < 0)
                        continue;
                r = strv_extend(&res->rolled_back, m->name);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int open_trees(Loader *l, const LoadOptions *opts, const char *release) {
        _cleanup_free_ char *host_dir = NULL, *tree_dir = NULL;
        int r;

        r = host_pathf(&host_dir, "/lib/modules/%s", release);
        if (r < 0)
                return r;
        if (opts && opts->module_tree) {
                r = host_path(opts->module_tree, &tree_dir);
                if (r < 0)
                        return r;
        }

        r = module_tree_open(tree_dir ? tree_dir : host_dir, &l->tree);
        if (r < 0)
                return r;
        /* The host tree only fills gaps; a host without one is not an error
         * as long as the asked-for tree is complete. */
        if (tree_dir && !streq(tree_dir, host_dir)) {
                r = module_tree_open(host_dir, &l->host);
                if (r < 0 && r != -ENOENT && r != -ENOTDIR)
                        return r;
        }
        return 0;
}

static int run(Loader *l, const LoadOptions *opts, const char *release) {
        static const char *const default_modules[] = { "nvme", NULL };
        const char *const *wanted = opts && opts->modules ? (const char *const *) opts->modules
                                                          : default_modules;
        int r;

        for (size_t i = 0; wanted[i]; i++) {
                _cleanup_free_ char *name = strdup(wanted[i]);

                if (!name)
                        return -ENOMEM;
                for (char *c = name; *c; c++)
                        if (*c == '-')
                                *c = '_';
                r = resolve(l, name, 0);
                if (r <= 0)
                        return r;
        }

        r = check_vermagic(l, release);
        if (r < 0 || l->result->failed_module)
                return r;

        for (size_t i = 0; i < l->n_steps && !l->result->failed_module; i++) {
                const LoadStep *s = &l->steps[i];

                r = s->already_loaded ? record(l->result, s->name, NULL, true) : insert_one(l, s);
                if (r < 0)
                        return r;
        }
        if (l->result->failed_module && opts && opts->rollback_on_failure)
                return roll_back(l->result);
        return 0;
}

int stack_load(const LoadOptions *opts, LoadResult **ret) {
        _cleanup_(load_result_freep) LoadResult *res = NULL;
        _cleanup_free_ char *release = NULL;
        Loader l = {};
        int r;

        r = host_kernel_release(&release);
        if (r < 0)
                return r;
        res = calloc(1, sizeof(*res));
        if (!res)
                return -ENOMEM;
        res->release = strdup(release);
        if (!res->release)
                return -ENOMEM;

        l.result = res;
        r = open_trees(&l, opts, release);
        if (r >= 0) {
                res->tree = strdup(l.tree->dir);
                r = res->tree ? run(&l, opts, release) : -ENOMEM;
        }
        loader_done(&l);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(res);
        return 0;
}
