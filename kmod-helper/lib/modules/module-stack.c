/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "host/host-root.h"
#include "modules/kallsyms-hooks.h"
#include "modules/module-stack.h"
#include "modules/proc-modules.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/parse-util.h"
#include "util/strv.h"

const char *const nvme_stack_modules[] = {
        "nvme_core", "nvme", "nvme_fabrics", "nvme_tcp", "nvme_rdma", "nvme_fc", NULL,
};

bool nvme_stack_module(const char *name) {
        for (const char *const *m = nvme_stack_modules; name && *m; m++)
                if (streq(*m, name))
                        return true;
        return false;
}

/* The state that is read once per stack read and shared by every module. */
typedef struct StackReadContext {
        ProcModules *proc;
        bool want_hooks;    /* MODULE_STACK_READ_HOOKS: ask /proc/kallsyms */
        char **gds_hooks;   /* "<module>:<generation>"; NULL until the first loaded module needs it */
} StackReadContext;

void module_name_normalize(char *name) {
        for (char *p = name; p && *p; p++)
                if (*p == '-')
                        *p = '_';
}

unsigned module_info_refs_beyond_holders(const ModuleInfo *m) {
        if (!m || !m->loaded || m->refcnt <= 0 || (size_t) m->refcnt <= m->n_holders)
                return 0;
        return (unsigned) ((size_t) m->refcnt - m->n_holders);
}

static void module_info_done(ModuleInfo *m) {
        free(m->name);
        free(m->initstate);
        strv_free(m->holders);
        free(m->taint);
        free(m->srcversion);
        free(m->gds_generations);
}

ModuleStack *module_stack_free(ModuleStack *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n_modules; i++)
                module_info_done(&s->modules[i]);
        free(s->modules);
        free(s);
        return NULL;
}


int module_sysfs_attr_read(const char *name, const char *attr, char **ret) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = host_pathf(&path, "/sys/module/%s/%s", name, attr);
        if (r < 0)
                return r;
        r = read_one_line_file(path, ret);
        if (r == -ENOENT) {
                *ret = NULL;
                return 0;
        }
        return r;
}

/* holders/ of sysfs, merged with the users column of /proc/modules: either
 * alone may be missing in a container or a fake root. */
static int read_holders(const char *name, const ProcModule *pm, char ***ret) {
        _cleanup_strv_free_ char **holders = NULL;
        _cleanup_free_ char *path = NULL;
        int r;

        r = host_pathf(&path, "/sys/module/%s/holders", name);
        if (r < 0)
                return r;
        r = read_dir_names(path, &holders);
        if (r == -ENOENT || r == -ENOTDIR)
                r = strv_copy(NULL, &holders);
        if (r < 0)
                return r;
        STRV_FOREACH(u, pm ? pm->users : NULL)
                if (!strv_contains(holders, *u)) {
                        r = strv_extend(&holders, *u);
                        if (r < 0)
                                return r;
                }
        strv_sort(holders);
        *ret = TAKE_PTR(holders);
        return 0;
}

static int read_refcnt(const char *name, const ProcModule *pm, int *ret) {
        _cleanup_free_ char *s = NULL;
        int r;

        r = module_sysfs_attr_read(name, "refcnt", &s);
        if (r < 0)
                return r;
        if (s && safe_atoi(s, ret) >= 0)
                return 0;
        if (pm) {
                *ret = pm->refcnt;
                return 0;
        }
        /* Loaded but no readable count anywhere: refuse to guess 0, which
         * would make the module look free. */
        return -EBADMSG;
}

static int read_mlx_compat_dependency(const char *name, bool *ret) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = host_pathf(&path, "/sys/module/mlx_compat/holders/%s", name);
        if (r < 0)
                return r;
        r = path_exists(path);
        if (r < 0)
                return r;
        *ret = r > 0;
        return 0;
}

/* kallsyms is large and slow to generate (~0.2 s, 1,000 read()s of one page
 * each; seconds under TCG): read it once per stack read, only when the hooks
 * are asked for, and only for a module that can carry them. The kernel
 * taints every module built outside its tree with O (kernel/module/main.c,
 * TAINT_OOT_MODULE unless the modinfo says intree;
 * Documentation/admin-guide/tainted-kernels.rst): a module whose taint was
 * read and has no O is the kernel's own build, which has no GDS hooks. So
 * the in-tree stack costs no kallsyms read at all; an unreadable taint
 * still asks kallsyms. */
static int read_gds_hooks(ModuleInfo *m, StackReadContext *ctx) {
        int r;

        if (!ctx->want_hooks || !m->may_have_gds_hooks)
                return 0;
        if (!ctx->gds_hooks) {
                r = kallsyms_gds_hooks_read(&ctx->gds_hooks);
                if (r < 0)
                        return r;
        }
        r = gds_hooks_generations_of(ctx->gds_hooks, m->name, &m->gds_generations);
        if (r < 0)
                return r;
        m->has_gds_hooks = m->gds_generations != NULL;
        return 0;
}

/* Loaded: listed in /proc/modules, or has an initstate (built-in modules
 * have /sys/module/<m>/ too, but no initstate). */
static int read_loaded_details(ModuleInfo *m, const ProcModule *pm, StackReadContext *ctx) {
        bool taint_known;
        int r;

        r = read_refcnt(m->name, pm, &m->refcnt);
        if (r < 0)
                return r;
        r = read_holders(m->name, pm, &m->holders);
        if (r < 0)
                return r;
        m->n_holders = strv_length(m->holders);
        r = module_sysfs_attr_read(m->name, "taint", &m->taint);
        taint_known = m->taint != NULL;
        if (r >= 0 && !m->taint)
                m->taint = strdup("");
        if (r < 0 || !m->taint)
                return r < 0 ? r : -ENOMEM;
        r = module_sysfs_attr_read(m->name, "srcversion", &m->srcversion);
        if (r < 0)
                return r;
        r = read_mlx_compat_dependency(m->name, &m->depends_on_mlx_compat);
        if (r < 0)
                return r;
        m->may_have_gds_hooks = !taint_known || strchr(m->taint, 'O');
        return read_gds_hooks(m, ctx);
}

static inline void module_info_donep(ModuleInfo *m) {
        module_info_done(m);
}

/* The initstate of sysfs, else the state column of /proc/modules, which
 * spells them "Live", "Loading", "Unloading"; NULL when neither knows it. */
static int read_initstate(const char *name, const ProcModule *pm, char **ret) {
        const char *s;
        int r;

        r = module_sysfs_attr_read(name, "initstate", ret);
        if (r < 0 || *ret || !pm)
                return r;
        s = streq(pm->state, "Loading") ? "coming" : streq(pm->state, "Unloading") ? "going" : "live";
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

static int module_info_read(const char *name, StackReadContext *ctx, ModuleInfo *ret) {
        const ProcModule *pm = proc_modules_find(ctx->proc, name);
        _cleanup_(module_info_donep) ModuleInfo m = { .refcnt = -1 };
        int r;

        m.name = strdup(name);
        if (!m.name)
                return -ENOMEM;
        r = read_initstate(name, pm, &m.initstate);
        if (r < 0)
                return r;
        m.loaded = pm || m.initstate;
        if (m.loaded)
                r = read_loaded_details(&m, pm, ctx);
        else if (!(m.holders = strv_new_empty()))
                r = -ENOMEM;
        if (r < 0)
                return r;
        m.origin = module_origin_classify(m.loaded, m.taint, m.depends_on_mlx_compat, m.has_gds_hooks);
        *ret = m;
        m = (ModuleInfo) {}; /* stolen */
        return 0;
}

static int stack_append(ModuleStack *s, const char *name, ModuleRole role, StackReadContext *ctx,
                        size_t *alloc) {
        int r;

        if (s->n_modules == *alloc) {
                ModuleInfo *grown;

                *alloc = *alloc * 2 + 8;
                grown = realloc(s->modules, *alloc * sizeof(ModuleInfo));
                if (!grown)
                        return -ENOMEM;
                s->modules = grown;
        }
        r = module_info_read(name, ctx, &s->modules[s->n_modules]);
        if (r < 0)
                return r;
        s->modules[s->n_modules].role = role;
        s->n_modules++;
        return 0;
}

/* Every loaded module holding a module of the list, transitively: the list
 * grows while we walk it, so holders of holders are visited too. */
static int append_outside_holders(ModuleStack *s, StackReadContext *ctx, size_t *alloc) {
        int r;

        for (size_t i = 0; i < s->n_modules; i++)
                for (size_t h = 0; h < s->modules[i].n_holders; h++) {
                        _cleanup_free_ char *name = strdup(s->modules[i].holders[h]);

                        if (!name)
                                return -ENOMEM;
                        if (module_stack_find(s, name))
                                continue;
                        r = stack_append(s, name, MODULE_ROLE_HOLDER, ctx, alloc);
                        if (r < 0)
                                return r;
                }
        return 0;
}

/* Whether a loaded member holds the module called name: its holders/ in
 * sysfs, or its users column in /proc/modules. */
static int held_by_member(const char *name, const StackReadContext *ctx, bool *ret) {
        const ProcModule *pm = proc_modules_find(ctx->proc, name);
        _cleanup_strv_free_ char **holders = NULL;
        int r;

        r = read_holders(name, pm, &holders);
        if (r < 0)
                return r;
        *ret = false;
        STRV_FOREACH(h, holders)
                if (nvme_stack_module(*h))
                        *ret = true;
        return 0;
}

/* Whether a loaded member uses the module, from its users column alone. */
static bool used_by_member(const ProcModule *pm) {
        STRV_FOREACH(u, pm->users)
                if (nvme_stack_module(*u))
                        return true;
        return false;
}

/* The modules the stack uses and may share with others, from the live
 * graph: every loaded module that a member holds, whatever its name
 * (nvme_auth, nvme_keyring, t10_pi, or what a later kernel adds).
 *
 * When /proc/modules lists modules, its users column is the answer: the
 * kernel prints there the same list of users that it links in holders/
 * (both are a module's source_list, kernel/module/main.c), and lists every
 * loaded module. Walking /sys/module instead costs a directory read per
 * module, built-in ones included (some 150 opens and getdents per stack
 * read, several stack reads per swap). Without /proc/modules (a container,
 * a fake root) /sys/module is walked. Built-in modules have no holders/. */
static int append_shared(ModuleStack *s, StackReadContext *ctx, size_t *alloc) {
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_free_ char *dir = NULL;
        bool from_proc = ctx->proc->n_modules > 0;
        int r;

        r = host_path("/sys/module", &dir);
        if (r < 0)
                return r;
        r = from_proc ? -ENOENT : read_dir_names(dir, &names);
        if (r == -ENOENT || r == -ENOTDIR)
                r = strv_copy(NULL, &names);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ctx->proc->n_modules; i++)
                if (!strv_contains(names, ctx->proc->modules[i].name) &&
                    strv_extend(&names, ctx->proc->modules[i].name) < 0)
                        return -ENOMEM;
        strv_sort(names);
        STRV_FOREACH(n, names) {
                bool held = false;

                if (module_stack_find(s, *n))
                        continue;
                if (from_proc)
                        held = used_by_member(proc_modules_find(ctx->proc, *n));
                else if ((r = held_by_member(*n, ctx, &held)) < 0)
                        return r;
                if (!held)
                        continue;
                r = stack_append(s, *n, MODULE_ROLE_SHARED, ctx, alloc);
                if (r < 0)
                        return r;
        }
        return 0;
}

static void stack_read_context_done(StackReadContext *ctx) {
        proc_modules_free(ctx->proc);
        strv_free(ctx->gds_hooks);
}

int module_stack_read_with(ModuleStackRead flags, ModuleStack **ret) {
        _cleanup_(module_stack_freep) ModuleStack *s = calloc(1, sizeof(ModuleStack));
        _cleanup_(stack_read_context_done) StackReadContext ctx = { .want_hooks = flags & MODULE_STACK_READ_HOOKS };
        size_t alloc = 0;
        int r;

        if (!s)
                return -ENOMEM;
        s->hooks_read = ctx.want_hooks;
        r = proc_modules_read(&ctx.proc);
        if (r < 0)
                return r;
        for (const char *const *m = nvme_stack_modules; *m; m++) {
                r = stack_append(s, *m, MODULE_ROLE_MEMBER, &ctx, &alloc);
                if (r < 0)
                        return r;
        }
        r = append_outside_holders(s, &ctx, &alloc);
        if (r < 0)
                return r;
        r = append_shared(s, &ctx, &alloc);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}

int module_stack_read(ModuleStack **ret) {
        return module_stack_read_with(MODULE_STACK_READ_HOOKS, ret);
}

const ModuleInfo *module_stack_find(const ModuleStack *s, const char *name) {
        for (size_t i = 0; s && name && i < s->n_modules; i++)
                if (streq(s->modules[i].name, name))
                        return &s->modules[i];
        return NULL;
}

bool module_stack_any_loaded(const ModuleStack *s) {
        for (size_t i = 0; s && i < s->n_modules; i++)
                if (s->modules[i].loaded)
                        return true;
        return false;
}

static bool origin_in_tree(ModuleOrigin o) {
        return o == MODULE_ORIGIN_IN_TREE;
}

/* A shared module is the host's code under NVIDIA's stack when some member
 * that is not in-tree uses it: the trust rule is about the members. */
ModuleBuild module_stack_build_of(const ModuleStack *s, const ModuleInfo *m) {
        if (!m || !m->loaded)
                return MODULE_BUILD_ABSENT;
        if (!origin_in_tree(m->origin))
                return MODULE_BUILD_CONTAINER;
        if (m->role != MODULE_ROLE_SHARED)
                return MODULE_BUILD_IN_TREE;
        for (size_t h = 0; h < m->n_holders; h++) {
                const ModuleInfo *u = module_stack_find(s, m->holders[h]);

                if (u && u->role == MODULE_ROLE_MEMBER && u->loaded && !origin_in_tree(u->origin))
                        return MODULE_BUILD_SHARED_FROM_HOST;
        }
        return MODULE_BUILD_IN_TREE;
}

bool module_shared_of_build(const ModuleInfo *m, char *const *recorded) {
        if (!m || !m->loaded || m->role != MODULE_ROLE_SHARED || !m->taint || !strchr(m->taint, 'O'))
                return false;
        return m->depends_on_mlx_compat || m->has_gds_hooks || strv_contains(recorded, m->name);
}
