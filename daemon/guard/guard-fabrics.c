/* SPDX-License-Identifier: Apache-2.0 */

/* The daemon's NVMe over Fabrics types (guard-ops.h): names of
 * the outcomes, and the list's memory. */

#include <stdlib.h>
#include <string.h>

#include "guard/guard-ops.h"
#include "util/macro.h"
#include "util/strv.h"

static const char *const outcome_names[_GUARD_FABRICS_OUTCOME_MAX] = {
        [GUARD_FABRICS_LIVE] = "live",
        [GUARD_FABRICS_PENDING] = "pending",
        [GUARD_FABRICS_RECONNECTED] = "reconnected",
        [GUARD_FABRICS_ALREADY_LIVE] = "already-live",
        [GUARD_FABRICS_FAILED] = "failed",
        [GUARD_FABRICS_NAMESPACES_MISSING] = "namespaces-missing",
        [GUARD_FABRICS_LOST] = "lost",
};

const char *guard_fabrics_outcome_to_string(GuardFabricsOutcome o) {
        return o >= 0 && o < _GUARD_FABRICS_OUTCOME_MAX ? outcome_names[o] : NULL;
}

GuardFabricsOutcome guard_fabrics_outcome_from_string(const char *s) {
        for (int i = 0; s && i < _GUARD_FABRICS_OUTCOME_MAX; i++)
                if (streq(s, outcome_names[i]))
                        return i;
        return _GUARD_FABRICS_OUTCOME_INVALID;
}

GuardFabricsConnection *guard_fabrics_add(GuardFabrics *f) {
        GuardFabricsConnection *n = realloc(f->items, (f->n + 1) * sizeof(*n));

        if (!n)
                return NULL;
        f->items = n;
        n[f->n] = (GuardFabricsConnection) {};
        return &n[f->n++];
}

bool guard_fabrics_any_unresolved(const GuardFabrics *f) {
        for (size_t i = 0; f && i < f->n; i++)
                if (f->items[i].outcome == GUARD_FABRICS_PENDING || f->items[i].outcome == GUARD_FABRICS_FAILED ||
                    f->items[i].outcome == GUARD_FABRICS_NAMESPACES_MISSING || f->items[i].outcome == GUARD_FABRICS_LOST)
                        return true;
        return false;
}

GuardFabrics *guard_fabrics_free(GuardFabrics *f) {
        if (!f)
                return NULL;
        for (size_t i = 0; i < f->n; i++) {
                GuardFabricsConnection *c = &f->items[i];

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
