/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "host/host-root.h"
#include "usage/swap-space-users.h"
#include "util/fileio.h"
#include "util/macro.h"

void swap_table_done(SwapTable *t) {
        for (size_t i = 0; i < t->n_entries; i++)
                free(t->entries[i].filename);
        free(t->entries);
        *t = (SwapTable) {};
}

/* The kernel escapes ' ', '\t', '\n' and '\\' as \ooo (seq_file's mangle). */
static void unescape_octal(char *s) {
        char *w = s;

        for (char *p = s; *p; p++) {
                if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' && p[3] >= '0' &&
                    p[3] <= '7') {
                        *w++ = (char) (((p[1] - '0') << 6) | ((p[2] - '0') << 3) | (p[3] - '0'));
                        p += 3;
                } else
                        *w++ = *p;
        }
        *w = '\0';
}

static int parse_line(SwapTable *t, const char *start, size_t len, size_t *alloc) {
        _cleanup_free_ char *line = strndup(start, len);
        char *save = NULL, *name, *type;

        if (!line)
                return -ENOMEM;
        name = strtok_r(line, " \t", &save);
        type = strtok_r(NULL, " \t", &save);
        if (!name || !type || streq(name, "Filename"))
                return 0;
        if (t->n_entries == *alloc) {
                size_t n = *alloc * 2 + 4;
                SwapEntry *grown = realloc(t->entries, n * sizeof(SwapEntry));

                if (!grown)
                        return -ENOMEM;
                t->entries = grown;
                *alloc = n;
        }
        unescape_octal(name);
        t->entries[t->n_entries] = (SwapEntry) { .filename = strdup(name), .is_file = streq(type, "file") };
        if (!t->entries[t->n_entries].filename)
                return -ENOMEM;
        t->n_entries++;
        return 0;
}

int swaps_parse(const char *text, SwapTable *ret) {
        SwapTable t = {};
        size_t alloc = 0;
        int r;

        for (const char *p = text; p && *p;) {
                size_t len = strcspn(p, "\n");

                r = parse_line(&t, p, len, &alloc);
                if (r < 0) {
                        swap_table_done(&t);
                        return r;
                }
                p += len;
                if (*p == '\n')
                        p++;
        }
        *ret = t;
        return 0;
}

/* The mount holding a file: the longest matched mount target that is a
 * directory prefix of the file's path. Only mounts on NVMe (or on holders)
 * were remembered, a handful: the scan is over them, not the table. */
static const MountMatch *mount_of_file(const UsageScan *s, const char *file) {
        const MountMatch *best = NULL;
        size_t best_len = 0;

        for (size_t i = 0; i < s->n_mounts; i++) {
                const char *t = s->mounts[i].target;
                size_t len = streq(t, "/") ? 0 : strlen(t);

                if (strneq(file, t, len) && file[len] == '/' && (!best || len >= best_len)) {
                        best = &s->mounts[i];
                        best_len = len;
                }
        }
        return best;
}

static int match_swap_file(UsageScan *s, const SwapEntry *e) {
        const MountMatch *m = mount_of_file(s, e->filename);
        int r;

        if (!m)
                return 0;
        if (m->kind == DEVICE_INDEX_HOLDER)
                return usage_collector_note(&s->collector, "swap file %s lives on %s (mounted on %s), stacked on %s",
                                            e->filename, s->holders.records[m->ref].stacked[m->sub], m->target,
                                            s->devices->devices[s->holders.records[m->ref].device].name);
        r = usage_collector_add(&s->collector, USAGE_SWAP, s->devices->devices[m->ref].name, e->filename, "file", 0);
        return r < 0 ? r : 0;
}

int swap_space_users_match(UsageScan *s, const SwapTable *t) {
        int r;

        for (size_t i = 0; i < t->n_entries; i++) {
                const SwapEntry *e = &t->entries[i];
                const DeviceIndexEntry *d;
                size_t n = 0;

                if (e->is_file) {
                        if ((r = match_swap_file(s, e)) < 0)
                                return r;
                        continue;
                }
                d = usage_scan_lookup_dev_path(s, e->filename, &n);
                for (size_t k = 0; k < n; k++)
                        if ((r = usage_scan_record_use(s, &d[k], USAGE_SWAP, e->filename, "partition")) < 0)
                                return r;
        }
        return 0;
}

int swap_space_users_read(UsageScan *s) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        SwapTable t = {};
        int r;

        r = host_path("/proc/swaps", &path);
        if (r < 0)
                return r;
        r = read_full_file(path, &text, NULL);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r == -ENOMEM ? r : usage_collector_note(&s->collector, "could not read /proc/swaps: %s", strerror(-r));
        r = swaps_parse(text, &t);
        if (r >= 0)
                r = swap_space_users_match(s, &t);
        swap_table_done(&t);
        return r;
}
