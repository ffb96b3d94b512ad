/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swap/swap-outcome.h"

const NodeBlockers *swap_outcome_blockers(const SwapOutcome *o) {
        if (o->blockers)
                return o->blockers;
        if (o->unload && o->unload->outcome == NODE_UNLOAD_REFUSED)
                return &o->unload->blockers;
        return NULL;
}

int swap_outcome_fail(SwapOutcome *o, const char *module, const char *fmt, ...) {
        va_list ap;
        int n;

        free(o->failure);
        free(o->failed_module);
        o->failed_module = module ? strdup(module) : NULL;
        va_start(ap, fmt);
        n = vasprintf(&o->failure, fmt, ap);
        va_end(ap);
        if (n < 0 || (module && !o->failed_module)) {
                /* Said even so: the failure's why is what the operator reads. */
                free(o->failure);
                o->failure = strdup("Out of memory.");
                return -ENOMEM;
        }
        return 0;
}

void swap_outcome_done(SwapOutcome *o) {
        free(o->failure);
        free(o->failed_module);
        node_unload_result_free(o->unload);
        node_blockers_free(o->blockers);
        node_load_result_free(o->load);
        free(o->tree);
        *o = (SwapOutcome) {};
}
