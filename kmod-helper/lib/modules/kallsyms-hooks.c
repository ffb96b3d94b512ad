/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host-root.h"
#include "modules/kallsyms-hooks.h"
#include "util/fileio.h"
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

/* What one line of /proc/kallsyms adds to the list being built (0 or -errno). */
typedef int (*KallsymsLineFn)(const char *line, char ***list);

/* Walks text line by line through fn; the sorted list, or -errno. */
static int kallsyms_parse_with(const char *text, KallsymsLineFn fn, char ***ret) {
        _cleanup_strv_free_ char **list = strv_new_empty();
        _cleanup_free_ char *line = NULL;
        int r;

        if (!list)
                return -ENOMEM;
        for (const char *p = text; p && *p;) {
                size_t len = strcspn(p, "\n");

                free(line);
                line = strndup(p, len);
                if (!line)
                        return -ENOMEM;
                r = fn(line, &list);
                if (r < 0)
                        return r;
                p += len;
                if (*p == '\n')
                        p++;
        }
        strv_sort(list);
        *ret = TAKE_PTR(list);
        return 0;
}

#define KALLSYMS_READ_BUFFER (128u * 1024u)

/* The host's /proc/kallsyms through fn; an unreadable or absent table is an
 * empty list (hooks unknown: none seen), not an error. */
static int kallsyms_read_with(KallsymsLineFn fn, char ***ret) {
        _cleanup_strv_free_ char **list = strv_new_empty();
        _cleanup_free_ char *path = NULL, *line = NULL, *buffer = NULL;
        _cleanup_fclose_ FILE *f = NULL; /* declared after buffer: closed before it is freed */
        size_t alloc = 0;
        int r;

        if (!list)
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
                *ret = TAKE_PTR(list);
                return 0;
        }
        (void) setvbuf(f, buffer, _IOFBF, KALLSYMS_READ_BUFFER);
        for (errno = 0; getline(&line, &alloc, f) >= 0; errno = 0) {
                r = fn(line, &list);
                if (r < 0)
                        return r;
        }
        if (ferror(f))
                return errno > 0 ? -errno : -EIO;
        strv_sort(list);
        *ret = TAKE_PTR(list);
        return 0;
}

int kallsyms_gds_modules_parse(const char *text, char ***ret) {
        return kallsyms_parse_with(text, consider_line, ret);
}

int kallsyms_gds_modules_read(char ***ret) {
        return kallsyms_read_with(consider_line, ret);
}

/* ---- generations ------------------------------------------------------ */

const char *gds_hook_generation(const char *symbol, size_t len, char gen[static 8]) {
        size_t suffix_len = strlen(GDS_HOOK_SUFFIX), end, start;

        gen[0] = '\0';
        if (len <= suffix_len || memcmp(symbol + len - suffix_len, GDS_HOOK_SUFFIX, suffix_len) != 0)
                return NULL;
        /* "<prefix>_v<digits>" before the suffix */
        end = len - suffix_len;
        start = end;
        while (start > 0 && symbol[start - 1] >= '0' && symbol[start - 1] <= '9')
                start--;
        if (start < end && end - start <= 5 && start >= 2 && symbol[start - 1] == 'v' && symbol[start - 2] == '_') {
                gen[0] = 'v';
                memcpy(gen + 1, symbol + start, end - start);
                gen[1 + end - start] = '\0';
        }
        return gen;
}

static int consider_hook_line(const char *line, char ***hooks) {
        const char *sym, *mod;
        size_t sym_len, mod_len;
        char gen[8], *entry = NULL;

        if (!strstr(line, GDS_HOOK_SUFFIX))
                return 0;
        if (!split_line(line, &sym, &sym_len, &mod, &mod_len))
                return 0;
        if (!gds_hook_generation(sym, sym_len, gen) || sym_len <= strlen(GDS_HOOK_SUFFIX))
                return 0;
        if (asprintf(&entry, "%.*s:%s", (int) mod_len, mod, gen) < 0)
                return -ENOMEM;
        return add_unique(hooks, entry);
}

int kallsyms_gds_hooks_parse(const char *text, char ***ret) {
        return kallsyms_parse_with(text, consider_hook_line, ret);
}

int kallsyms_gds_hooks_read(char ***ret) {
        return kallsyms_read_with(consider_hook_line, ret);
}

int gds_hooks_generations_of(char *const *hooks, const char *module, char **ret) {
        _cleanup_free_ char *joined = NULL;
        size_t n = strlen(module);
        bool any = false;

        STRV_FOREACH(h, hooks) {
                char *next = NULL;
                const char *gen;

                if (strncmp(*h, module, n) != 0 || (*h)[n] != ':')
                        continue;
                gen = *h + n + 1;
                if (asprintf(&next, "%s%s%s", joined ?: "", joined ? "," : "", *gen ? gen : "unversioned") < 0)
                        return -ENOMEM;
                free(joined);
                joined = next;
                any = true;
        }
        *ret = any ? TAKE_PTR(joined) : NULL;
        return 0;
}

#define NVME_HOOK_PREFIX "nvme_v"

int gds_wanted_generations_scan(const char *buf, size_t len, char ***ret) {
        _cleanup_strv_free_ char **gens = strv_new_empty();
        const size_t prefix_len = strlen(NVME_HOOK_PREFIX);
        const char *p = buf, *end = buf + len;

        if (!gens)
                return -ENOMEM;
        while (p && (size_t) (end - p) > prefix_len &&
               (p = memmem(p, (size_t) (end - p), NVME_HOOK_PREFIX, prefix_len))) {
                const char *q = p + prefix_len, *d = q;
                size_t suffix_len = strlen(GDS_HOOK_SUFFIX);

                while (d < end && *d >= '0' && *d <= '9' && d - q < 5)
                        d++;
                /* "nvme_v1_register_nvfs_dma_ops", not "nvme_rdma_v1_..." (that
                 * one does not start with "nvme_v") nor a longer name. */
                if (d > q && (size_t) (end - d) >= suffix_len && memcmp(d, GDS_HOOK_SUFFIX, suffix_len) == 0 &&
                    (p == buf || p[-1] == '\0' || p[-1] == '.')) {
                        char *g = NULL;

                        if (asprintf(&g, "v%.*s", (int) (d - q), q) < 0)
                                return -ENOMEM;
                        if (add_unique(&gens, g) < 0)
                                return -ENOMEM;
                }
                p = q;
        }
        strv_sort(gens);
        *ret = TAKE_PTR(gens);
        return 0;
}

#define KO_READ_MAX (256u * 1024u * 1024u)

static bool compressed_module(const char *path) {
        static const char *const suffixes[] = { ".xz", ".zst", ".gz" };
        size_t n = strlen(path);

        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++)
                if (n > strlen(suffixes[i]) && streq(path + n - strlen(suffixes[i]), suffixes[i]))
                        return true;
        return false;
}

int gds_wanted_generations_read(const char *path, char ***ret) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        size_t n = 0;
        int r;

        if (compressed_module(path))
                return -EPROTONOSUPPORT;
        /* A link is followed (RHEL's weak-updates/ are links); O_NONBLOCK:
         * a FIFO in a container's tree must not hang us (read_regular_fd
         * refuses anything but a regular file). */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        r = read_regular_fd(fd, KO_READ_MAX, &buf, &n);
        if (r < 0)
                return r;
        return gds_wanted_generations_scan(buf, n, ret);
}

GdsMatch gds_generations_match(const char *exported, char *const *wanted) {
        if (!wanted || !wanted[0])
                return GDS_MATCH_UNKNOWN;
        if (!exported)
                return GDS_MATCH_NO_HOOKS;
        STRV_FOREACH(w, wanted) {
                size_t n = strlen(*w);

                for (const char *p = exported; *p;) {
                        size_t len = strcspn(p, ",");

                        if (len == n && strncmp(p, *w, n) == 0)
                                return GDS_MATCH_SAME;
                        p += len;
                        if (*p == ',')
                                p++;
                }
        }
        return GDS_MATCH_DIFFERENT;
}

const char *gds_match_to_string(GdsMatch m) {
        switch (m) {
        case GDS_MATCH_SAME: return "same";
        case GDS_MATCH_DIFFERENT: return "different";
        case GDS_MATCH_NO_HOOKS: return "no-hooks";
        default: return "unknown";
        }
}
