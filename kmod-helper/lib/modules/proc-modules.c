/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "host/host-root.h"
#include "modules/proc-modules.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/parse-util.h"
#include "util/strv.h"

static void proc_module_done(ProcModule *m) {
        free(m->name);
        strv_free(m->users);
        free(m->state);
}

ProcModules *proc_modules_free(ProcModules *m) {
        if (!m)
                return NULL;
        for (size_t i = 0; i < m->n_modules; i++)
                proc_module_done(&m->modules[i]);
        free(m->modules);
        free(m);
        return NULL;
}


static int parse_users(const char *field, char ***ret) {
        _cleanup_strv_free_ char **users = strv_new_empty();
        _cleanup_free_ char *copy = strdup(field);
        char *save = NULL;
        int r;

        if (!users || !copy)
                return -ENOMEM;
        if (!streq(field, "-"))
                for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                        r = strv_extend(&users, t);
                        if (r < 0)
                                return r;
                }
        *ret = TAKE_PTR(users);
        return 0;
}

/* 1 with *m filled, 0 for a malformed line, -ENOMEM. */
static int parse_line(char *line, ProcModule *m) {
        char *save = NULL, *f[5];
        unsigned long size;
        uint64_t sz;
        int refcnt, r;

        for (int i = 0; i < 5; i++) {
                f[i] = strtok_r(i == 0 ? line : NULL, " \t", &save);
                if (!f[i])
                        return 0;
        }
        if (safe_atou64(f[1], &sz) < 0 || safe_atoi(f[2], &refcnt) < 0)
                return 0;
        size = (unsigned long) sz;
        *m = (ProcModule) { .size = size, .refcnt = refcnt };
        m->name = strdup(f[0]);
        m->state = strdup(f[4]);
        r = parse_users(f[3], &m->users);
        if (!m->name || !m->state || r < 0) {
                proc_module_done(m);
                return -ENOMEM;
        }
        return 1;
}

static int append_line(ProcModules *t, const char *start, size_t len, size_t *alloc) {
        _cleanup_free_ char *line = strndup(start, len);
        ProcModule m;
        int r;

        if (!line)
                return -ENOMEM;
        r = parse_line(line, &m);
        if (r <= 0)
                return r;
        if (t->n_modules == *alloc) {
                ProcModule *grown;

                *alloc = *alloc * 2 + 16;
                grown = realloc(t->modules, *alloc * sizeof(ProcModule));
                if (!grown) {
                        proc_module_done(&m);
                        return -ENOMEM;
                }
                t->modules = grown;
        }
        t->modules[t->n_modules++] = m;
        return 0;
}

int proc_modules_parse(const char *text, ProcModules **ret) {
        _cleanup_(proc_modules_freep) ProcModules *t = calloc(1, sizeof(ProcModules));
        size_t alloc = 0;
        int r;

        if (!t)
                return -ENOMEM;
        for (const char *p = text; p && *p;) {
                size_t len = strcspn(p, "\n");

                r = append_line(t, p, len, &alloc);
                if (r < 0)
                        return r;
                p += len;
                if (*p == '\n')
                        p++;
        }
        *ret = TAKE_PTR(t);
        return 0;
}

int proc_modules_read(ProcModules **ret) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        int r;

        r = host_path("/proc/modules", &path);
        if (r < 0)
                return r;
        r = read_full_file(path, &text, NULL);
        if (r == -ENOENT)
                return proc_modules_parse("", ret);
        if (r < 0)
                return r;
        return proc_modules_parse(text, ret);
}

const ProcModule *proc_modules_find(const ProcModules *m, const char *name) {
        for (size_t i = 0; m && i < m->n_modules; i++)
                if (streq(m->modules[i].name, name))
                        return &m->modules[i];
        return NULL;
}
