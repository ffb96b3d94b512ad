/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>

#include "node/node-ops-pin.h"
#include "usage/usage-check.h"
#include "usage/usage-pin.h"
#include "util/macro.h"
#include "util/strv.h"


/* The daemon's one pin: its descriptors must outlive every call. */
static UsagePin *pin;

static int copy_out(const UsageReport *u, NodePin **ret) {
        _cleanup_(node_pin_freep) NodePin *g = calloc(1, sizeof(NodePin));
        int r;

        if (!g || !(g->devices = strv_new_empty()))
                return -ENOMEM;
        if ((r = usage_pin_modules(pin, &g->modules)) < 0 || (r = strv_copy(pin->reasons, &g->reasons)) < 0 ||
            (r = strv_copy(pin->problems, &g->problems)) < 0)
                return r;
        for (size_t i = 0; u && i < u->n_usages; i++) {
                if (strv_extend(&g->devices, u->usages[i].device) < 0)
                        return -ENOMEM;
                if (u->usages[i].kind == USAGE_OPEN_BY_PROCESS)
                        g->n_opens++;
        }
        *ret = TAKE_PTR(g);
        return 0;
}

int node_pin_refresh_real(void *userdata, NodePin **ret) {
        _cleanup_(usage_report_freep) UsageReport *u = NULL;
        int r;

        if (!pin && !(pin = usage_pin_new()))
                return -ENOMEM;
        /* A check that cannot be made keeps the pin as it is: letting go
         * on an error would fail open. */
        r = usage_check(&u);
        if (r < 0)
                return r;
        r = usage_pin_update(pin, u);
        if (r < 0)
                return r;
        return copy_out(u, ret);
}

void node_pin_release_real(void *userdata) {
        usage_pin_release(pin);
}
