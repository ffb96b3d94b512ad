/* SPDX-License-Identifier: Apache-2.0 */
/* modules.dep written from the .ko files of a tree, as depmod does (see
 * fake-node-depmod.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake-node-private.h"

typedef struct KoEntry {
        char *name;
        char *rel;
        char *depends;
} KoEntry;

static int collect_ko(const char *base, const char *rel, KoEntry **v, size_t *nv) {
        _auto_free_ char *abs = NULL;
        struct dirent *de;
        DIR *d;
        int r = 0;

        if (asprintf(&abs, "%s%s%s", base, rel[0] ? "/" : "", rel) < 0)
                return -ENOMEM;
        d = opendir(abs);
        if (!d)
                return -errno;
        while (r >= 0 && (de = readdir(d))) {
                _auto_free_ char *sub = NULL, *file = NULL, *image = NULL;
                size_t l = strlen(de->d_name), misz;
                const char *mi;
                KoEntry *nvv;
                FILE *f;
                long sz;

                if (de->d_name[0] == '.')
                        continue;
                if (asprintf(&sub, "%s%s%s", rel, rel[0] ? "/" : "", de->d_name) < 0)
                        return closedir(d), -ENOMEM;
                if (de->d_type == DT_DIR) {
                        r = collect_ko(base, sub, v, nv);
                        continue;
                }
                if (l < 4 || strcmp(de->d_name + l - 3, ".ko") != 0)
                        continue;
                if (asprintf(&file, "%s/%s", base, sub) < 0)
                        return closedir(d), -ENOMEM;
                f = fopen(file, "re");
                if (!f)
                        continue;
                fseek(f, 0, SEEK_END);
                sz = ftell(f);
                rewind(f);
                image = malloc(sz > 0 ? (size_t) sz : 1);
                if (image && sz > 0 && fread(image, 1, (size_t) sz, f) == (size_t) sz &&
                    fake_elf_modinfo(image, (size_t) sz, &mi, &misz) >= 0) {
                        nvv = realloc(*v, (*nv + 1) * sizeof(KoEntry));
                        if (nvv) {
                                *v = nvv;
                                (*v)[*nv].name = strndup(de->d_name, l - 3);
                                for (char *c = (*v)[*nv].name; c && *c; c++)
                                        if (*c == '-')
                                                *c = '_';
                                (*v)[*nv].rel = strdup(sub);
                                (*v)[*nv].depends = fake_modinfo_get(mi, misz, "depends");
                                (*nv)++;
                        }
                }
                fclose(f);
        }
        closedir(d);
        return r;
}

static const KoEntry *ko_find(const KoEntry *v, size_t nv, const char *name) {
        for (size_t i = 0; i < nv; i++)
                if (v[i].name && strcmp(v[i].name, name) == 0)
                        return &v[i];
        return NULL;
}

/* Transitive dependencies, each once, nearest first (like depmod). */
static void dep_closure(const KoEntry *v, size_t nv, const KoEntry *e, FILE *out, char *seen, unsigned depth) {
        _auto_free_ char *copy = NULL;
        char *save = NULL;

        if (depth > 16 || !e->depends || !(copy = strdup(e->depends)))
                return;
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                const KoEntry *d;

                for (char *c = t; *c; c++)
                        if (*c == '-')
                                *c = '_';
                d = ko_find(v, nv, t);
                if (!d || seen[d - v])
                        continue;
                seen[d - v] = 1;
                fprintf(out, " %s", d->rel);
                dep_closure(v, nv, d, out, seen, depth + 1);
        }
}

int fake_node_write_modules_dep(FakeNode *n, const char *tree) {
        _auto_free_ char *base = fnode_rpath(n, "%s", tree), *out = NULL, *path = NULL;
        KoEntry *v = NULL;
        size_t nv = 0, olen = 0;
        FILE *o;
        int r;

        if (!base || asprintf(&path, "%s/modules.dep", base) < 0)
                return -ENOMEM;
        r = collect_ko(base, "", &v, &nv);
        if (r >= 0 && (o = open_memstream(&out, &olen))) {
                for (size_t i = 0; i < nv; i++) {
                        char *seen = calloc(nv ? nv : 1, 1);

                        fprintf(o, "%s:", v[i].rel);
                        if (seen)
                                dep_closure(v, nv, &v[i], o, seen, 0);
                        free(seen);
                        fputc('\n', o);
                }
                fclose(o);
                r = fnode_write_file(path, out ? out : "");
        } else if (r >= 0)
                r = -ENOMEM;
        for (size_t i = 0; i < nv; i++) {
                free(v[i].name);
                free(v[i].rel);
                free(v[i].depends);
        }
        free(v);
        return r;
}
