/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strv.h"
#include "node/node-ops.h"
#include "util/macro.h"

static const char *const origin_names[_GUARD_ORIGIN_MAX] = {
        [NODE_ORIGIN_ABSENT] = "absent",
        [NODE_ORIGIN_IN_TREE] = "in-tree",
        [NODE_ORIGIN_OUT_OF_TREE] = "out-of-tree",
        [NODE_ORIGIN_NVIDIA] = "nvidia",
};

const char *node_origin_to_string(NodeOrigin o) {
        return o >= 0 && o < _GUARD_ORIGIN_MAX ? origin_names[o] : "unknown";
}

NodeOrigin node_origin_from_string(const char *s) {
        for (int i = 0; s && i < _GUARD_ORIGIN_MAX; i++)
                if (streq(s, origin_names[i]))
                        return i;
        return NODE_ORIGIN_ABSENT;
}

int node_read_stack_hooks(const NodeOps *ops, NodeStack **ret) {
        return ops->read_stack_hooks ? ops->read_stack_hooks(ops->userdata, ret) : ops->read_stack(ops->userdata, ret);
}

NodeStack *node_stack_free(NodeStack *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n_modules; i++) {
                free(s->modules[i].name);
                free(s->modules[i].gds_generations);
                free(s->modules[i].srcversion);
                free(s->modules[i].build);
                strv_free(s->modules[i].needs);
        }
        free(s->modules);
        free(s);
        return NULL;
}

const NodeModule *node_stack_find(const NodeStack *s, const char *name) {
        for (size_t i = 0; s && i < s->n_modules; i++)
                if (streq(s->modules[i].name, name))
                        return &s->modules[i];
        return NULL;
}

bool node_stack_any_loaded(const NodeStack *s) {
        for (size_t i = 0; s && i < s->n_modules; i++)
                if (s->modules[i].origin != NODE_ORIGIN_ABSENT)
                        return true;
        return false;
}

bool node_stack_replacement_loaded(const NodeStack *s) {
        const NodeModule *m = node_stack_find(s, "nvme");

        if (!m || m->origin == NODE_ORIGIN_ABSENT)
                m = node_stack_find(s, "nvme_core");
        return m && (m->origin == NODE_ORIGIN_OUT_OF_TREE || m->origin == NODE_ORIGIN_NVIDIA);
}

int node_stack_loaded_names(const NodeStack *s, char ***ret) {
        char **l = NULL;

        for (size_t i = 0; s && i < s->n_modules; i++)
                /* The stack's: a shared module (nvme_auth, t10_pi) is never asked
                 * for by name; the host's stays loaded, and when the unload took an
                 * earlier build's own out, the host's comes back with
                 * the member that needs it. */
                if (s->modules[i].origin != NODE_ORIGIN_ABSENT && !s->modules[i].shared &&
                    strv_push(&l, strdup(s->modules[i].name)) < 0) {
                        strv_free(l);
                        return -ENOMEM;
                }
        *ret = l;
        return 0;
}

void node_blockers_clear(NodeBlockers *b) {
        for (size_t i = 0; b && i < b->n; i++) {
                free(b->items[i].device);
                free(b->items[i].kind);
                free(b->items[i].where);
                free(b->items[i].description);
        }
        if (b) {
                free(b->items);
                b->items = NULL;
                b->n = 0;
        }
}

NodeBlockers *node_blockers_free(NodeBlockers *b) {
        node_blockers_clear(b);
        free(b);
        return NULL;
}

char *node_blockers_join(const NodeBlockers *b) {
        _cleanup_free_ char **descriptions = calloc((b ? b->n : 0) + 1, sizeof(char *));

        if (!descriptions)
                return NULL;
        for (size_t i = 0; b && i < b->n; i++)
                descriptions[i] = b->items[i].description ?: (char *) "";
        return strv_join(descriptions, "; ");
}

NodeUnloadResult *node_unload_result_free(NodeUnloadResult *r) {
        if (!r)
                return NULL;
        strv_free(r->removed);
        strv_free(r->kept);
        node_blockers_clear(&r->blockers);
        free(r->failed_module);
        free(r);
        return NULL;
}

NodeLoadResult *node_load_result_free(NodeLoadResult *r) {
        if (!r)
                return NULL;
        strv_free(r->loaded);
        strv_free(r->from_tree);
        strv_free(r->from_host);
        strv_free(r->already);
        strv_free(r->replaced);
        strv_free(r->kept);
        free(r->failed_module);
        free(r->failed_reason);
        free(r);
        return NULL;
}

NodeNamespaces *node_namespaces_free(NodeNamespaces *n) {
        if (!n)
                return NULL;
        for (size_t i = 0; i < n->n; i++) {
                free(n->items[i].name);
                free(n->items[i].serial);
        }
        free(n->items);
        free(n);
        return NULL;
}

static bool namespace_present(const NodeNamespaces *now, const NodeNamespace *ns) {
        for (size_t i = 0; now && i < now->n; i++)
                if (now->items[i].nsid == ns->nsid && streq(now->items[i].serial ?: "", ns->serial ?: ""))
                        return true;
        return false;
}

int node_namespaces_missing(const NodeNamespaces *before, const NodeNamespaces *now, char ***ret) {
        char **missing = NULL;

        for (size_t i = 0; before && i < before->n; i++) {
                const NodeNamespace *ns = &before->items[i];
                char *line;

                if (namespace_present(now, ns))
                        continue;
                if (asprintf(&line, "%s/%u (%s)", ns->serial ?: "?", ns->nsid, ns->name ?: "?") < 0 ||
                    strv_push(&missing, line) < 0) {
                        strv_free(missing);
                        return -ENOMEM;
                }
        }
        *ret = missing;
        return 0;
}

NodePin *node_pin_free(NodePin *p) {
        if (!p)
                return NULL;
        strv_free(p->modules);
        strv_free(p->reasons);
        strv_free(p->problems);
        strv_free(p->devices);
        free(p);
        return NULL;
}

bool node_pin_held(const NodePin *p) {
        return p && p->modules && p->modules[0];
}

NodeGds *node_gds_free(NodeGds *g) {
        if (!g)
                return NULL;
        free(g->exported);
        free(g->wanted);
        free(g->description);
        free(g);
        return NULL;
}
