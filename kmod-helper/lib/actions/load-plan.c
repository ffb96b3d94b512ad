/* SPDX-License-Identifier: Apache-2.0 */
/* The plan of a load (load-plan.h): where each module comes from, its file
 * opened and checked, in load order; stack-load.c carries it out. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "actions/host-tree-warm.h"
#include "actions/load-plan.h"
#include "actions/load-prepare.h"
#include "actions/load-removals.h"
#include "actions/module-elf.h"
#include "actions/module-file.h"
#include "actions/module-live.h"
#include "actions/module-tree.h"
#include "actions/stack-load.h"
#include "host/host-root.h"
#include "modules/module-stack.h"
#include "sandbox/module-meta-job.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

/* Far deeper than any real module graph: only a cycle gets there. */
#define LOAD_MAX_DEPTH 32

void load_plan_done(LoadPlan *l) {
        for (size_t i = 0; i < l->n_steps; i++) {
                free(l->steps[i].name);
                if (l->steps[i].fd >= 0)
                        close(l->steps[i].fd);
                module_meta_done(&l->steps[i].meta);
        }
        free(l->steps);
        module_tree_free(l->tree);
        module_tree_free(l->host);
}

int load_fail(LoadResult *res, const char *module, int error, const char *fmt, ...) {
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

static const LoadStep *find_step(const LoadPlan *l, const char *name) {
        for (size_t i = 0; i < l->n_steps; i++)
                if (streq(l->steps[i].name, name))
                        return &l->steps[i];
        return NULL;
}

/* Takes fd and meta in every case. */
static int add_step(LoadPlan *l, const char *name, const ModuleTree *tree, const ModuleTreeEntry *e,
                    bool already_loaded, int fd, ModuleMeta *meta) {
        LoadStep *n = reallocarray(l->steps, l->n_steps + 1, sizeof(*n));
        ModuleMeta none = {};

        if (!meta)
                meta = &none;
        if (!n) {
                if (fd >= 0)
                        close(fd);
                module_meta_done(meta);
                return -ENOMEM;
        }
        l->steps = n;
        l->steps[l->n_steps] = (LoadStep) { .name = strdup(name), .entry = e, .tree = tree,
                                            .already_loaded = already_loaded, .fd = fd, .meta = *meta };
        *meta = (ModuleMeta) {};
        l->n_steps++;
        return l->steps[l->n_steps - 1].name ? 0 : -ENOMEM;
}

static uint64_t now_usec(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

void load_plan_start(LoadPlan *l, LoadResult *res, unsigned timeout_sec) {
        l->result = res;
        l->timeout_sec = timeout_sec ?: LOAD_TIMEOUT_SEC_DEFAULT;
        l->deadline = now_usec() + (uint64_t) l->timeout_sec * 1000000ULL;
}

int load_past_deadline(LoadPlan *l, const char *module, const char *step) {
        int r;

        if (now_usec() < l->deadline)
                return 0;
        r = load_fail(l->result, module, ETIMEDOUT, "%s: the load took longer than %u s; stopped before %s",
                      module, l->timeout_sec, step);
        return r < 0 ? r : 1;
}

/* Opens the module once and reads what a load checks from those bytes.
 * 1 with *ret_fd and *ret_meta, 0 when the result records why not, -ENOMEM. */
static int open_module(LoadPlan *l, const char *name, const ModuleTree *tree, const ModuleTreeEntry *e, int *ret_fd,
                       ModuleMeta *ret_meta) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *image = NULL;
        _cleanup_(module_meta_done) ModuleMeta meta = {};
        ModuleImageKind kind = MODULE_IMAGE_UNKNOWN;
        const char *why = NULL;
        bool prepared;
        size_t size;
        int r;

        r = module_tree_open_module(tree, e, &fd, &size);
        if (r == -EBADFD)
                return load_fail(l->result, name, EBADFD, "%s: %s is not a regular file", name, e->path) ?: 0;
        if (r == -EFBIG)
                return load_fail(l->result, name, EFBIG, "%s: %s is larger than %u MiB", name, e->path,
                                 MODULE_FILE_MAX >> 20) ?: 0;
        if (r == -ENOENT)
                /* modules.dep names a file the tree does not have: a stale
                 * index (files removed after depmod), not a missing build. */
                return load_fail(l->result, name, ENOENT,
                                 "%s: cannot read %s: it is not there, yet %s names it; the index does not "
                                 "match the files: run depmod -a %s in that tree, or rebuild the image",
                                 name, e->path, tree->from_modules_dep ? "the tree's modules.dep" : "the tree walk",
                                 l->result->release) ?: 0;
        if (r == -EXDEV || r == -ELOOP)
                return load_fail(l->result, name, EXDEV, "%s: %s leads outside %s (symlink or magic link)", name,
                                 e->path, tree->dir) ?: 0;
        /* Read before the node went driverless, from this very file
         * (load-prepare.h): the same checks follow. */
        if (r >= 0)
                r = load_prepared_file(tree, e, fd, &kind, &meta);
        prepared = r > 0;
        if (r == 0)
                r = module_file_read(fd, size, &image, &size);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return load_fail(l->result, name, -r, "%s: cannot read %s: %s", name, e->path, strerror(-r)) ?: 0;

        if (!prepared)
                kind = module_image_kind(image, size);
        if (module_image_kind_is_compressed(kind) && tree != l->host && l->from_container)
                /* Neither libkmod 28 (it decompresses by path, unbounded: a
                 * 72 KB nvme.ko.zst cost 34 s and 2.1 GB) nor the kernel
                 * (MODULE_INIT_COMPRESSED_FILE: Linux 5.17, not RHEL 9's 5.14,
                 * and no cap either) can bound the decompressed size, and the
                 * driver containers install their builds uncompressed. */
                return load_fail(l->result, name, EMEDIUMTYPE,
                                 "%s: %s is %s-compressed: compressed modules are not loaded from a container "
                                 "(their decompressed size cannot be bounded)",
                                 name, e->path, module_image_kind_to_string(kind)) ?: 0;
        if (prepared)
                r = 0;
        else if (module_image_kind_is_compressed(kind)) {
                close(TAKE_FD(fd)); /* the host's own file: libkmod by path */
                r = module_tree_meta_libkmod(tree, e, &meta);
        } else /* a container's file: in the parser child (module-tree.h) */
                r = module_meta_parse_in(tree->confined, image, size, &meta, &why);
        if (r == -ENOMEM)
                return r;
        if (r == -EIO && why)
                return load_fail(l->result, name, EIO, "%s: cannot read the modinfo of %s: %s", name, e->path,
                                 why) ?: 0;
        if (r < 0)
                return load_fail(l->result, name, ENOEXEC, "%s: %s is not a kernel module with a valid modinfo",
                                 name, e->path) ?: 0;
        if (!streq(meta.name, name))
                return load_fail(l->result, name, EBADMSG, "%s: %s says it is module \"%s\", not %s", name,
                                 e->path, meta.name, name) ?: 0;
        *ret_fd = TAKE_FD(fd);
        *ret_meta = meta;
        meta = (ModuleMeta) {};
        return 1;
}

/* Where a module comes from: a stack member from the tree asked for and
 * nowhere else (a container without a build of it must not get the host's
 * in-tree one mixed into NVIDIA's stack); any other module (what the stack
 * shares: nvme_auth, nvme_keyring, t10_pi) from that tree, or the host's
 * when the tree lacks it: the host's own code, which NVIDIA's build may
 * link (an out-of-tree build of drivers/nvme/host alone does). parent: who
 * needs it (NULL: asked for). 1 with *ret_tree and *ret_entry, 0 when the
 * result records why not. */
static int find_module(LoadPlan *l, const char *name, const char *parent, const ModuleTree **ret_tree,
                       const ModuleTreeEntry **ret_entry) {
        const ModuleTreeEntry *e = module_tree_find(l->tree, name);
        int r;

        if (e) {
                *ret_tree = l->tree;
                *ret_entry = e;
                return 1;
        }
        if (l->from_container && nvme_stack_module(name)) {
                r = load_fail(l->result, name, ENOPKG,
                              "%s: the container's tree %s has no build of %s; nothing is loaded from the host for it",
                              name, l->tree->dir, name);
                return r < 0 ? r : 0;
        }
        e = module_tree_find(l->host, name);
        if (!e) {
                r = load_fail(l->result, name, ENOENT,
                              "%s: %s%s needs it, and it is not in %s%s%s, nor built into the kernel; %s", name,
                              parent ?: "nothing", parent ? "" : " else", l->tree->dir, l->host ? " nor in " : "",
                              l->host ? l->host->dir : "",
                              l->from_container ? "install the kernel's own module package on the host, or use a "
                                                  "driver build that ships it"
                                                : "install the kernel's module package");
                return r < 0 ? r : 0;
        }
        *ret_tree = l->host;
        *ret_entry = e;
        return 1;
}

/* Built into the running kernel (6.12's t10_pi and crc helpers): nothing to
 * load. Only the host's modules.builtin knows: it describes the kernel. */
static bool builtin(const LoadPlan *l, const char *name) {
        return module_tree_builtin(l->from_container ? l->host : l->tree, name);
}

/* Whether the loaded module is the very build the tree ships (its
 * srcversion, in sysfs, equal to the file's): mlx_compat that the
 * container's openibd loaded is, and stays without a word. 1 same, 0 not or
 * cannot tell (the load then reads the file and says what is wrong with
 * it), -ENOMEM. */
static int same_build(const ModuleTree *t, const ModuleTreeEntry *e, const char *name) {
        _cleanup_free_ char *image = NULL, *path = NULL, *live = NULL;
        _cleanup_(module_meta_done) ModuleMeta meta = {};
        _cleanup_close_ int fd = -EBADF;
        const ModuleMeta *prepared;
        size_t size;
        int r;

        r = host_pathf(&path, "/sys/module/%s/srcversion", name);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        if (read_one_line_file(path, &live) < 0 || module_tree_open_module(t, e, &fd, &size) < 0)
                return 0;
        prepared = load_prepared_peek(t, e, fd); /* read from this file before the unload */
        if (prepared)
                return prepared->srcversion && streq(prepared->srcversion, live);
        if (module_file_read(fd, size, &image, &size) < 0 ||
            module_meta_parse_in(t->confined, image, size, &meta, NULL) < 0)
                return 0;
        return meta.srcversion && streq(meta.srcversion, live);
}

/* A module already in the kernel. A member stays (the unload before the
 * load decides about those); a module the stack shares, which the tree
 * ships too, is replaced when nothing else holds it: taken out here, loaded
 * from the tree by the caller. 1 kept (its step added), 0 taken out, -errno. */
static int present(LoadPlan *l, const char *name) {
        _cleanup_free_ char *why = NULL;
        const ModuleTreeEntry *e;
        int r;

        e = nvme_stack_module(name) ? NULL : module_tree_find(l->tree, name);
        r = e && l->from_container ? same_build(l->tree, e, name) : 0;
        if (r < 0)
                return r;
        if (e && r == 0) {
                r = load_shared_release(name, l->from_container, &why);
                if (r < 0)
                        return r;
                if (r > 0)
                        return strv_extendf(&l->result->replaced, "%s", name) < 0 ? -ENOMEM : 0;
                if (why && strv_extendf(&l->result->kept,
                                       "%s: the loaded build stays, %s ships its own but this one is %s", name,
                                       l->tree->dir, why) < 0)
                        return -ENOMEM;
        }
        return add_step(l, name, NULL, NULL, true, -EBADF, NULL) < 0 ? -ENOMEM : 1;
}

/* Depth-first: every dependency gets its step before the module itself.
 * Returns 1 when resolved, 0 when the result records why not, -errno. */
static int resolve(LoadPlan *l, const char *name, const char *parent, unsigned depth) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_(module_meta_done) ModuleMeta meta = {};
        const ModuleTree *tree;
        const ModuleTreeEntry *e;
        int r;

        if (find_step(l, name))
                return 1;
        if (depth > LOAD_MAX_DEPTH) {
                r = load_fail(l->result, name, ELOOP, "%s: dependency cycle in %s", name, l->tree->dir);
                return r < 0 ? r : 0;
        }
        r = load_past_deadline(l, name, "resolving it");
        if (r != 0)
                return r < 0 ? r : 0;

        r = module_is_present(name);
        if (r > 0)
                r = present(l, name);
        if (r != 0)
                return r;
        if (builtin(l, name)) {
                r = add_step(l, name, NULL, NULL, true, -EBADF, NULL);
                if (r >= 0)
                        l->steps[l->n_steps - 1].builtin = true;
                return r < 0 ? -ENOMEM : 1;
        }

        r = find_module(l, name, parent, &tree, &e);
        if (r <= 0)
                return r;
        r = open_module(l, name, tree, e, &fd, &meta);
        if (r <= 0)
                return r;

        /* modules.dep and the module's own modinfo: a container's depmod
         * leaves out the dependencies its tree lacks. */
        STRV_FOREACH(d, e->depends) {
                r = resolve(l, *d, name, depth + 1);
                if (r <= 0)
                        return r;
        }
        STRV_FOREACH(d, meta.depends) {
                r = resolve(l, *d, name, depth + 1);
                if (r <= 0)
                        return r;
        }
        return add_step(l, name, tree, e, false, TAKE_FD(fd), &meta) < 0 ? -ENOMEM : 1;
}

/* Before anything is inserted: a module built for another kernel would be
 * refused by the kernel with ENOEXEC half-way through the stack. */
static int check_vermagic(LoadPlan *l, const char *release) {
        for (size_t i = 0; i < l->n_steps; i++) {
                const LoadStep *s = &l->steps[i];
                _cleanup_free_ char *vermagic = NULL;

                if (s->already_loaded)
                        continue;
                vermagic = s->meta.vermagic ? strdup(s->meta.vermagic) : NULL;
                if (s->meta.vermagic && !vermagic)
                        return -ENOMEM;
                if (!vermagic || !streq(vermagic, release))
                        return load_fail(l->result, s->name, ENOEXEC,
                                         "%s: %s was built for kernel %s, the running kernel is %s",
                                         s->name, s->entry->path, vermagic ? vermagic : "(no vermagic)",
                                         release);
        }
        return 0;
}

int load_plan_open_trees(LoadPlan *l, const LoadOptions *opts, const char *release, const char **ret_why) {
        _cleanup_free_ char *host_dir = NULL, *tree_dir = NULL;
        int r;

        r = host_pathf(&host_dir, "/lib/modules/%s", release);
        if (r < 0)
                return r;
        if (opts && opts->module_tree) {
                r = load_tree_display(opts, &tree_dir);
                if (r >= 0) /* prepared before the unload, or opened now */
                        r = load_prepared_tree(opts, tree_dir, &l->tree, ret_why);
        } else
                r = host_tree_take(release, host_dir, &l->tree);
        if (r < 0)
                return r;
        l->from_container = tree_dir && !streq(tree_dir, host_dir);
        /* The host tree only fills gaps; a host without one is not an error
         * as long as the asked-for tree is complete. */
        if (tree_dir && !streq(tree_dir, host_dir)) {
                r = host_tree_take(release, host_dir, &l->host);
                if (r < 0 && r != -ENOENT && r != -ENOTDIR)
                        return r;
        }
        return 0;
}

int load_plan_make(LoadPlan *l, const LoadOptions *opts, const char *release) {
        static const char *const default_modules[] = { "nvme", NULL };
        const char *const *wanted = opts && opts->modules ? (const char *const *) opts->modules
                                                          : default_modules;
        int r;

        for (size_t i = 0; wanted[i]; i++) {
                _cleanup_free_ char *name = strdup(wanted[i]);

                if (!name)
                        return -ENOMEM;
                module_name_normalize(name);
                r = resolve(l, name, NULL, 0);
                if (r <= 0)
                        return r;
        }

        r = check_vermagic(l, release);
        if (r < 0)
                return r;
        return l->result->failed_module ? 0 : 1;
}
