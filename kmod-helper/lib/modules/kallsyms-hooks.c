/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host-root.h"
#include "modules/kallsyms-hooks.h"
#include "util/macro.h"
#include "util/strv.h"

#define GDS_HOOK_SUFFIX "_register_nvfs_dma_ops"

/* The third field (symbol name) and the [module] tag of a kallsyms line. */
static int split_line(const char *line, const char **sym, size_t *sym_len, const char **mod,
                      size_t *mod_len) {
        const char *p = line;

        for (int field = 0; field < 2; field++) { /* skip address and type */
                p += strcspn(p, " \t");
                p += strspn(p, " \t");
        }
        *sym = p;
        *sym_len = strcspn(p, " \t\n");
        p += *sym_len;
        p += strspn(p, " \t");
        if (*p != '[')
                return 0; /* a symbol of the kernel image itself */
        p++;
        *mod = p;
        *mod_len = strcspn(p, "]\n \t");
        return p[*mod_len] == ']' && *mod_len > 0 && *sym_len > 0;
}

int kallsyms_line_gds_module(const char *line, char **ret_module) {
        const char *sym, *mod;
        size_t sym_len, mod_len, suffix_len = strlen(GDS_HOOK_SUFFIX);
        char *m;

        if (!split_line(line, &sym, &sym_len, &mod, &mod_len))
                return 0;
        /* A prefix is required: a bare "_register_nvfs_dma_ops" is not a hook name. */
        if (sym_len <= suffix_len || memcmp(sym + sym_len - suffix_len, GDS_HOOK_SUFFIX, suffix_len) != 0)
                return 0;
        m = strndup(mod, mod_len);
        if (!m)
                return -ENOMEM;
        *ret_module = m;
        return 1;
}

static int add_unique(char ***l, char *m) {
        if (strv_contains(*l, m)) {
                free(m);
                return 0;
        }
        return strv_push(l, m);
}

static int consider_line(const char *line, char ***modules) {
        char *m = NULL;
        int r;

        /* Cheap filter first: nearly every line of 200k fails it. */
        if (!strstr(line, GDS_HOOK_SUFFIX))
                return 0;
        r = kallsyms_line_gds_module(line, &m);
        if (r <= 0)
                return r;
        return add_unique(modules, m);
}

int kallsyms_gds_modules_parse(const char *text, char ***ret) {
        _cleanup_strv_free_ char **modules = strv_new_empty();
        _cleanup_free_ char *line = NULL;
        int r;

        if (!modules)
                return -ENOMEM;
        for (const char *p = text; p && *p;) {
                size_t len = strcspn(p, "\n");

                free(line);
                line = strndup(p, len);
                if (!line)
                        return -ENOMEM;
                r = consider_line(line, &modules);
                if (r < 0)
                        return r;
                p += len;
                if (*p == '\n')
                        p++;
        }
        strv_sort(modules);
        *ret = TAKE_PTR(modules);
        return 0;
}

#define KALLSYMS_READ_BUFFER (128u * 1024u)

int kallsyms_gds_modules_read(char ***ret) {
        _cleanup_strv_free_ char **modules = strv_new_empty();
        _cleanup_free_ char *path = NULL, *line = NULL, *buffer = NULL;
        _cleanup_fclose_ FILE *f = NULL; /* declared after buffer: closed before it is freed */
        size_t alloc = 0;
        int r;

        if (!modules)
                return -ENOMEM;
        /* stdio would read /proc/kallsyms 1 KiB at a time (its st_blksize):
         * 12,000 read() calls per stack read on a 6.1 kernel. */
        buffer = malloc(KALLSYMS_READ_BUFFER);
        if (!buffer)
                return -ENOMEM;
        r = host_path("/proc/kallsyms", &path);
        if (r < 0)
                return r;
        f = fopen(path, "re");
        if (!f) {
                if (errno != ENOENT && errno != EACCES && errno != EPERM)
                        return -errno;
                *ret = TAKE_PTR(modules); /* hooks unknown: none seen */
                return 0;
        }
        (void) setvbuf(f, buffer, _IOFBF, KALLSYMS_READ_BUFFER);
        for (errno = 0; getline(&line, &alloc, f) >= 0; errno = 0) {
                r = consider_line(line, &modules);
                if (r < 0)
                        return r;
        }
        if (ferror(f))
                return errno > 0 ? -errno : -EIO;
        strv_sort(modules);
        *ret = TAKE_PTR(modules);
        return 0;
}
