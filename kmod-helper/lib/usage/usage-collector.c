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
        usage_mount_namespace_free(u->mount_ns);
}

UsageMountNamespace *usage_mount_namespace_free(UsageMountNamespace *m) {
        if (!m)
                return NULL;
        for (size_t i = 0; i < m->n_named; i++)
                free(m->commands[i]);
        free(m->container_id);
        free(m->pod_namespace);
        free(m->pod_name);
        free(m->container_name);
        free(m);
        return NULL;
}

static int dup_opt(const char *s, char **ret);

UsageMountNamespace *usage_mount_namespace_copy(const UsageMountNamespace *m) {
        _cleanup_(usage_mount_namespace_freep) UsageMountNamespace *c = calloc(1, sizeof(*c));

        if (!c)
                return NULL;
        *c = (UsageMountNamespace) { .inode = m->inode, .n_processes = m->n_processes };
        for (; c->n_named < m->n_named; c->n_named++) {
                c->pids[c->n_named] = m->pids[c->n_named];
                if (dup_opt(m->commands[c->n_named], &c->commands[c->n_named]) < 0)
                        return NULL;
        }
        if (dup_opt(m->container_id, &c->container_id) < 0 || dup_opt(m->pod_namespace, &c->pod_namespace) < 0 ||
            dup_opt(m->pod_name, &c->pod_name) < 0 || dup_opt(m->container_name, &c->container_name) < 0)
                return NULL;
        return TAKE_PTR(c);
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
