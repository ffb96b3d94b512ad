/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Whether the loaded NVMe stack can drive the node's namespaces, whoever
 * loaded or removed what. The real case it exists for: a new driver
 * container's `openibd restart` removes NVIDIA's nvme (refcnt 0), fails on
 * mlx_compat (held by nvme_core) and leaves nvme_core alone: no nvme, no
 * block device (docs: FIELD-NOTES section 8). Pure: it judges a NodeStack
 * the caller read. */

#include <errno.h>
#include <stdbool.h>

#include "node/node-ops.h"

typedef enum StackBreak {
        STACK_WORKING,              /* nothing wrong (or nothing loaded: see stack_health_check) */
        STACK_ABSENT,               /* no stack module is loaded */
        STACK_CORE_WITHOUT_NVME,    /* nvme_core without nvme, where nvme is wanted */
        STACK_MISSING_DEPENDENCY,   /* .module is loaded without .other (a transport without
                                       nvme_fabrics/nvme_core, nvme without nvme_core) */
        STACK_MIXED_BUILDS,         /* .module and .other are builds of two origins */
        _STACK_BREAK_MAX,
        _STACK_BREAK_INVALID = -EINVAL,
} StackBreak;

typedef struct StackHealth {
        StackBreak what;
        const char *module;         /* points into the stack or a static name; NULL when working */
        const char *other;
} StackHealth;

/* wanted: the stack modules the node is meant to have (Modules=, or what was
 * loaded before our unload); NULL: nvme. nvme_core without nvme is broken
 * only when nvme is wanted (a fabrics-only node has no nvme). */
StackHealth stack_health_check(const NodeStack *s, char *const *wanted);
static inline bool stack_health_broken(StackHealth h) {
        return h.what != STACK_WORKING && h.what != STACK_ABSENT;
}
/* "stack-absent", "core-without-nvme", "missing-dependency", "mixed-builds". */
const char *stack_break_to_string(StackBreak b);
/* One line for the journal: "nvme_core is loaded without nvme". malloc'd, NULL on ENOMEM. */
char *stack_health_describe(StackHealth h);
