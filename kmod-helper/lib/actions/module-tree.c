/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libkmod.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "actions/kmod-util.h"
#include "actions/module-tree.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

/* A tree walk never needs to go deeper than kernel/drivers/nvme/host/...;
 * the bound keeps a hostile tree (symlink loops are not followed anyway)
 * from costing more than it should. */
#define TREE_WALK_MAX_DEPTH 12

static const char *const module_suffixes[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz" };

int module_name_from_path(const char *path, char **ret) {
        const char *base = strrchr(path, '/');
        size_t n = 0;
        char *name;

        base = base ? base + 1 : path;
        for (size_t i = 0; i < ELEMENTSOF(module_suffixes); i++) {
                size_t l = strlen(base), s = strlen(module_suffixes[i]);

                if (l > s && streq(base + l - s, module_suffixes[i])) {
                        n = l - s;
                        break;
                }
        }
        if (n == 0)
                return -EINVAL;

        name = strndup(base, n);
        if (!name)
                return -ENOMEM;
        for (char *c = name; *c; c++)
                if (*c == '-')
                        *c = '_';
        *ret = name;
        return 0;
}

static int rank_of(const char *relpath) {
        if (strneq(relpath, "updates/", 8))
                return 0;
        if (strneq(relpath, "extra/", 6))
                return 1;
        return 2;
}

static void entry_done(ModuleTreeEntry *e) {
        free(e->name);
        free(e->path);
        strv_free(e->depends);
}

ModuleTree *module_tree_free(ModuleTree *t) {
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->n_entries; i++)
                entry_done(&t->entries[i]);
        free(t->entries);
        if (t->ctx)
                kmod_unref(t->ctx);
        free(t->dir);
        free(t);
        return NULL;
}


static ModuleTreeEntry *find_mutable(const ModuleTree *t, const char *name) {
        for (size_t i = 0; i < t->n_entries; i++)
                if (streq(t->entries[i].name, name))
                        return &t->entries[i];
        return NULL;
}

const ModuleTreeEntry *module_tree_find(const ModuleTree *t, const char *name) {
        return t ? find_mutable(t, name) : NULL;
}

/* Takes ownership of name, path and depends in every case. */
static int tree_add(ModuleTree *t, char *name, char *path, char **depends, int rank) {
        ModuleTreeEntry *e, *n;

        e = find_mutable(t, name);
        if (e) {
                if (rank < e->rank) {
                        entry_done(e);
                        *e = (ModuleTreeEntry) { name, path, depends, rank };
                        return 0;
                }
                free(name);
                free(path);
                strv_free(depends);
                return 0;
        }

        n = reallocarray(t->entries, t->n_entries + 1, sizeof(*n));
        if (!n) {
                free(name);
                free(path);
                strv_free(depends);
                return -ENOMEM;
        }
        t->entries = n;
        t->entries[t->n_entries++] = (ModuleTreeEntry) { name, path, depends, rank };
        return 0;
}

/* modules.dep paths are relative to the tree; depmods before kmod wrote
 * absolute /lib/modules/<release>/... paths, which inside a container's
 * root mean the same tree. */
static const char *relative_module_path(const char *p) {
        if (p[0] != '/')
                return p;
        if (!strneq(p, "/lib/modules/", 13))
                return NULL;
        p = strchr(p + 13, '/');
        return p && p[1] ? p + 1 : NULL;
}

static int parse_dep_line(ModuleTree *t, char *line) {
        _cleanup_free_ char *name = NULL, *path = NULL;
        _cleanup_strv_free_ char **deps = NULL;
        char *colon, *rel, *tok, *save = NULL;
        int r;

        colon = strchr(line, ':');
        if (!colon)
                return 0;
        *colon = '\0';
        rel = (char *) relative_module_path(line);
        if (!rel || module_name_from_path(rel, &name) < 0)
                return 0;
        if (asprintf(&path, "%s/%s", t->dir, rel) < 0)
                return -ENOMEM;
        deps = strv_new_empty();
        if (!deps)
                return -ENOMEM;

        for (tok = strtok_r(colon + 1, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
                char *dep = NULL;

                if (module_name_from_path(tok, &dep) < 0)
                        continue;
                r = strv_push(&deps, dep);
                if (r < 0)
                        return r;
        }
        return tree_add(t, TAKE_PTR(name), TAKE_PTR(path), TAKE_PTR(deps), rank_of(rel));
}

int module_tree_parse_modules_dep(ModuleTree *t, const char *text) {
        _cleanup_free_ char *copy = strdup(text);
        char *line, *save = NULL;
        int r;

        if (!copy)
                return -ENOMEM;
        for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                r = parse_dep_line(t, line);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Appends the non-empty comma-separated fields of a modinfo `depends`. */
static int depends_split_append(char ***l, const char *s) {
        _cleanup_free_ char *copy = strdup(s);
        char *tok, *save = NULL;
        int r;

        if (!copy)
                return -ENOMEM;
        for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                for (char *c = tok; *c; c++)
                        if (*c == '-')
                                *c = '_';
                r = strv_extend(l, tok);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Without modules.dep, a module's dependencies are its modinfo `depends`. */
int module_tree_modinfo_depends(const ModuleTree *t, const char *path, char ***ret) {
        _cleanup_(kmod_module_unrefp) struct kmod_module *mod = NULL;
        _cleanup_(kmod_module_info_free_listp) struct kmod_list *info = NULL;
        _cleanup_strv_free_ char **deps = NULL;
        struct kmod_list *l;
        int r;

        deps = strv_new_empty();
        if (!deps)
                return -ENOMEM;
        r = kmod_module_new_from_path(t->ctx, path, &mod);
        if (r < 0)
                return r;
        r = kmod_module_get_info(mod, &info);
        if (r < 0)
                return r;

        kmod_list_foreach(l, info) {
                const char *v = kmod_module_info_get_value(l);

                if (!streq(kmod_module_info_get_key(l), "depends") || !v)
                        continue;
                r = depends_split_append(&deps, v);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(deps);
        return 0;
}

static int walk(ModuleTree *t, const char *rel, unsigned depth) {
        _cleanup_free_ char *abs = NULL;
        DIR *d;
        struct dirent *de;
        int r = 0;

        if (depth > TREE_WALK_MAX_DEPTH)
                return 0;
        if (asprintf(&abs, "%s%s%s", t->dir, rel[0] ? "/" : "", rel) < 0)
                return -ENOMEM;
        d = opendir(abs);
        if (!d)
                return depth == 0 ? -errno : 0; /* an unreadable subdirectory is skipped */

        while (r >= 0 && (de = readdir(d))) {
                _cleanup_free_ char *sub = NULL, *name = NULL, *path = NULL;
                char **deps = NULL;

                if (de->d_name[0] == '.')
                        continue;
                if (asprintf(&sub, "%s%s%s", rel, rel[0] ? "/" : "", de->d_name) < 0) {
                        r = -ENOMEM;
                        break;
                }
                if (de->d_type == DT_DIR) {
                        r = walk(t, sub, depth + 1);
                        continue;
                }
                if (de->d_type != DT_REG && de->d_type != DT_UNKNOWN)
                        continue; /* symlinks are not followed: no loops */
                if (module_name_from_path(de->d_name, &name) < 0)
                        continue;
                if (asprintf(&path, "%s/%s", t->dir, sub) < 0) {
                        r = -ENOMEM;
                        break;
                }
                if (module_tree_modinfo_depends(t, path, &deps) < 0)
                        continue; /* not a readable module: skip it, a load would fail anyway */
                r = tree_add(t, TAKE_PTR(name), TAKE_PTR(path), deps, rank_of(sub));
        }
        closedir(d);
        return r;
}

int module_tree_open(const char *dir, ModuleTree **ret) {
        _cleanup_(module_tree_freep) ModuleTree *t = NULL;
        _cleanup_free_ char *dep_path = NULL, *text = NULL;
        struct stat st;
        int r;

        if (stat(dir, &st) < 0)
                return -errno;
        if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;

        t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        t->dir = strdup(dir);
        if (!t->dir)
                return -ENOMEM;
        t->ctx = kmod_new_quiet(dir);
        if (!t->ctx)
                return -ENOMEM;

        if (asprintf(&dep_path, "%s/modules.dep", dir) < 0)
                return -ENOMEM;
        r = read_full_file(dep_path, &text, NULL);
        if (r >= 0) {
                t->from_modules_dep = true;
                r = module_tree_parse_modules_dep(t, text);
        } else if (r == -ENOENT)
                r = walk(t, "", 0);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(t);
        return 0;
}
