/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usage/usage-collector.h"
#include "util/alloc-util.h"
#include "util/strv.h"

void usage_done(Usage *u) {
        free(u->device);
        free(u->where);
        free(u->what);
        free(u->mount_point);
        free(u->fstype);
        free(u->via);
}

int usage_collector_init(UsageCollector *c) {
        *c = (UsageCollector) {};
        c->notes = strv_new_empty();
        return c->notes ? 0 : -ENOMEM;
}

void usage_collector_done(UsageCollector *c) {
        for (size_t i = 0; i < c->n_usages; i++)
                usage_done(&c->usages[i]);
        free(c->usages);
        strv_free(c->notes);
        *c = (UsageCollector) {};
}

static int dup_opt(const char *s, char **ret) {
        *ret = s ? strdup(s) : NULL;
        return !s || *ret ? 0 : -ENOMEM;
}

int usage_collector_add(UsageCollector *c, UsageKind kind, const char *device, const char *where,
                        const char *what, pid_t pid) {
        Usage u = { .kind = kind, .pid = pid };

        if (ARRAY_RESERVE(c->usages, c->alloc, c->n_usages, 8) < 0)
                return -ENOMEM;
        if (dup_opt(device, &u.device) < 0 || dup_opt(where, &u.where) < 0 || dup_opt(what, &u.what) < 0) {
                usage_done(&u);
                return -ENOMEM;
        }
        c->usages[c->n_usages] = u;
        return (int) c->n_usages++;
}

int usage_collector_note(UsageCollector *c, const char *fmt, ...) {
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = strv_extendfv(&c->notes, fmt, ap);
        va_end(ap);
        return r;
}
