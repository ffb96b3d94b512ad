/* SPDX-License-Identifier: Apache-2.0 */
/* The index model of a module tree (module-tree.h): its entries, the rank
 * that settles a module found twice, lookups. Reading a tree from disk into
 * it: module-tree-read.c. */
#include <errno.h>
#include <libkmod.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actions/module-tree.h"
#include "actions/modules-dep-text.h"
#include "util/macro.h"
#include "util/strv.h"

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
        free(e->relpath);
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
        if (t->has_fds)
                close(t->root_fd);
        free(t->in_root);
        free(t->dir);
        strv_free(t->builtin);
        free(t);
        return NULL;
}

#define SWAP_ENTRY(a, b)                        \
        do {                                    \
                ModuleTreeEntry _t_ = (a);      \
                (a) = (b);                      \
                (b) = _t_;                      \
        } while (0)

static ModuleTreeEntry *find_mutable(const ModuleTree *t, const char *name) {
        for (size_t i = 0; i < t->n_entries; i++)
                if (streq(t->entries[i].name, name))
                        return &t->entries[i];
        return NULL;
}

const ModuleTreeEntry *module_tree_find(const ModuleTree *t, const char *name) {
        return t ? find_mutable(t, name) : NULL;
}

/* Takes ownership of name and depends in every case; relpath is copied.
 * unique: look for an entry of the same name first (the better ranked one
 * stays, at the first one's place); otherwise the caller settles duplicates
 * once, with module_tree_settle_duplicates(). */
int module_tree_add_entry(ModuleTree *t, char *name, const char *relpath, char **depends, bool unique) {
        ModuleTreeEntry new = { .name = name, .depends = depends };
        ModuleTreeEntry *e, *n;

        if (asprintf(&new.path, "%s/%s", t->dir, relpath) < 0)
                new.path = NULL;
        new.relpath = strdup(relpath);
        if (!new.path || !new.relpath) {
                entry_done(&new);
                return -ENOMEM;
        }
        /* Ranked from the entry's own copy, once it has one. (Ranking the
         * argument first gave gcc's UBSan build, whose null check in strncmp()
         * may report and go on, a path where relpath is NULL at the
         * asprintf() above: -Wformat-overflow "directive argument is null".) */
        new.rank = rank_of(new.relpath);

        e = unique ? find_mutable(t, name) : NULL;
        if (e) {
                if (new.rank < e->rank)
                        SWAP_ENTRY(*e, new);
                entry_done(&new);
                return 0;
        }

        n = reallocarray(t->entries, t->n_entries + 1, sizeof(*n));
        if (!n) {
                entry_done(&new);
                return -ENOMEM;
        }
        t->entries = n;
        t->entries[t->n_entries++] = new;
        return 0;
}

typedef struct Ranked {
        const ModuleTreeEntry *e;
        size_t pos;
} Ranked;

static int cmp_ranked(const void *a, const void *b) {
        const Ranked *x = a, *y = b;
        int c = strcmp(x->e->name, y->e->name);

        if (c != 0)
                return c;
        if (x->e->rank != y->e->rank)
                return x->e->rank < y->e->rank ? -1 : 1;
        return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* What module_tree_add_entry() with unique does entry by entry, for a
 * whole index at once: one entry per name, the best ranked (the earliest of
 * those), at the place of the name's first entry. Looking each name up as
 * it was added cost n^2/2 name comparisons: 9 million for the 4,230 lines
 * of Debian 6.12's modules.dep, seconds of every load under TCG. Here: a
 * sort. */
int module_tree_settle_duplicates(ModuleTree *t) {
        size_t n = t->n_entries, k = 0;
        _cleanup_free_ Ranked *r = calloc(n ?: 1, sizeof(*r));
        _cleanup_free_ size_t *slot = calloc(n ?: 1, sizeof(*slot)); /* first place -> winner + 1 */
        _cleanup_free_ bool *won = calloc(n ?: 1, sizeof(*won));
        _cleanup_free_ ModuleTreeEntry *kept = calloc(n ?: 1, sizeof(*kept));

        if (!r || !slot || !won || !kept)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                r[i] = (Ranked) { .e = &t->entries[i], .pos = i };
        qsort(r, n, sizeof(*r), cmp_ranked);
        for (size_t i = 0; i < n;) {
                size_t j = i, first = r[i].pos;

                for (; j < n && streq(r[j].e->name, r[i].e->name); j++)
                        first = r[j].pos < first ? r[j].pos : first;
                slot[first] = r[i].pos + 1;
                won[r[i].pos] = true;
                i = j;
        }
        for (size_t p = 0; p < n; p++) {
                if (slot[p])
                        kept[k++] = t->entries[slot[p] - 1];
                if (!won[p])
                        entry_done(&t->entries[p]);
        }
        free(t->entries);
        t->entries = TAKE_PTR(kept);
        t->n_entries = k;
        return 0;
}

static int add_unsettled(void *userdata, char *name, const char *relpath, char **depends) {
        return module_tree_add_entry(userdata, name, relpath, depends, false);
}

int module_tree_parse_modules_dep(ModuleTree *t, const char *text) {
        int r = modules_dep_parse_text(text, add_unsettled, t);

        return r < 0 ? r : module_tree_settle_duplicates(t);
}

bool module_tree_builtin(const ModuleTree *t, const char *name) {
        return t && strv_contains(t->builtin, name);
}

