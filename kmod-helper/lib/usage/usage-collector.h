/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Where every usage source puts what it finds: a growing list of Usage and
 * of notes, each source appending in its own order; usage-check sorts the
 * result into device order at the end. */

#include <stddef.h>
#include <sys/types.h>

#include "usage/usage-check.h"
#include "util/macro.h"

typedef struct UsageCollector {
        Usage *usages;
        size_t n_usages, alloc;
        char **notes; /* never NULL once initialized */
} UsageCollector;

int usage_collector_init(UsageCollector *c);
void usage_collector_done(UsageCollector *c);

/* Appends a usage; strings are copied (where/what may be NULL). Returns the
 * new usage's index, or -ENOMEM. */
int usage_collector_add(UsageCollector *c, UsageKind kind, const char *device, const char *where,
                        const char *what, pid_t pid);

int usage_collector_note(UsageCollector *c, const char *fmt, ...) _printf_(2, 3);

/* Frees the strings a Usage owns (not the Usage itself). */
void usage_done(Usage *u);

UsageMountNamespace *usage_mount_namespace_free(UsageMountNamespace *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(UsageMountNamespace *, usage_mount_namespace_free);
/* A deep copy, or NULL on ENOMEM. */
UsageMountNamespace *usage_mount_namespace_copy(const UsageMountNamespace *m);
