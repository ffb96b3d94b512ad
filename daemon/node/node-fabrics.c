/* SPDX-License-Identifier: Apache-2.0 */

/* The daemon's NVMe over Fabrics types (node-ops.h): names of
 * the outcomes, and the list's memory. */

#include <stdlib.h>
#include <string.h>

#include "node/node-ops.h"
#include "util/macro.h"
#include "util/strv.h"

static const char *const outcome_names[_GUARD_FABRICS_OUTCOME_MAX] = {
        [NODE_FABRICS_LIVE] = "live",
        [NODE_FABRICS_PENDING] = "pending",
        [NODE_FABRICS_RECONNECTED] = "reconnected",
        [NODE_FABRICS_ALREADY_LIVE] = "already-live",
        [NODE_FABRICS_FAILED] = "failed",
        [NODE_FABRICS_NAMESPACES_MISSING] = "namespaces-missing",
        [NODE_FABRICS_LOST] = "lost",
};

const char *node_fabrics_outcome_to_string(NodeFabricsOutcome o) {
        return o >= 0 && o < _GUARD_FABRICS_OUTCOME_MAX ? outcome_names[o] : NULL;
}

NodeFabricsOutcome node_fabrics_outcome_from_string(const char *s) {
        for (int i = 0; s && i < _GUARD_FABRICS_OUTCOME_MAX; i++)
                if (streq(s, outcome_names[i]))
                        return i;
        return _GUARD_FABRICS_OUTCOME_INVALID;
}

NodeFabricsConnection *node_fabrics_add(NodeFabrics *f) {
        NodeFabricsConnection *n = realloc(f->items, (f->n + 1) * sizeof(*n));

        if (!n)
                return NULL;
        f->items = n;
        n[f->n] = (NodeFabricsConnection) {};
        return &n[f->n++];
}

bool node_fabrics_any_unresolved(const NodeFabrics *f) {
        for (size_t i = 0; f && i < f->n; i++)
                if (f->items[i].outcome == NODE_FABRICS_PENDING || f->items[i].outcome == NODE_FABRICS_FAILED ||
                    f->items[i].outcome == NODE_FABRICS_NAMESPACES_MISSING || f->items[i].outcome == NODE_FABRICS_LOST)
                        return true;
        return false;
}

NodeFabrics *node_fabrics_free(NodeFabrics *f) {
        if (!f)
                return NULL;
        for (size_t i = 0; i < f->n; i++) {
                NodeFabricsConnection *c = &f->items[i];

                free(c->description);
                free(c->controller);
                free(c->new_controller);
                free(c->transport);
                free(c->address);
                free(c->subsysnqn);
                free(c->error_message);
                free(c->error_kind);
                free(c->traddr);
                free(c->trsvcid);
        }
        free(f->items);
        strv_free(f->transports);
        free(f);
        return NULL;
}
