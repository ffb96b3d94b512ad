/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "node/pin-holder.h"
#include "util/macro.h"
#include "util/strv.h"

struct PinHolder {
        const NodeOps *ops;
        NodePin *now;
        char *summary;  /* the reasons joined, NULL when nothing is pinned */
        char *problems; /* the problems joined, to say them once */
        /* The last refresh's change (pin_holder_last_change()): */
        NodePin *before;
        char *before_summary;
        bool problems_new;
};

PinHolder *pin_holder_new(const NodeOps *ops) {
        PinHolder *h = calloc(1, sizeof(PinHolder));

        if (h)
                h->ops = ops;
        return h;
}

PinHolder *pin_holder_free(PinHolder *h) {
        if (!h)
                return NULL;
        node_pin_free(h->now);
        node_pin_free(h->before);
        free(h->summary);
        free(h->before_summary);
        free(h->problems);
        free(h);
        return NULL;
}

bool pin_holder_held(const PinHolder *h) {
        return h && node_pin_held(h->now);
}

const char *pin_holder_summary(const PinHolder *h) {
        return h ? h->summary : NULL;
}

char *const *pin_holder_reasons(const PinHolder *h) {
        return pin_holder_held(h) ? h->now->reasons : NULL;
}

/* Keeps the problems of the pin now when they differ from those last seen,
 * to be said once; forgets them when there are none. */
static bool problems_new(PinHolder *h) {
        _cleanup_free_ char *joined = strv_join(h->now ? h->now->problems : NULL, "; ");

        if (!joined || !*joined || (h->problems && strcmp(joined, h->problems) == 0)) {
                if (joined && !*joined) {
                        free(h->problems);
                        h->problems = NULL;
                }
                return false;
        }
        free(h->problems);
        h->problems = TAKE_PTR(joined);
        return true;
}

int pin_holder_refresh(PinHolder *h) {
        NodePin *now = NULL;
        int r;

        if (!h || !h->ops->pin_refresh)
                return 0;
        r = h->ops->pin_refresh(h->ops->userdata, &now);
        if (r < 0)
                return r;
        /* What it was, kept for the caller to tell the change. */
        node_pin_free(h->before);
        h->before = h->now;
        free(h->before_summary);
        h->before_summary = TAKE_PTR(h->summary);
        h->now = now;
        h->problems_new = problems_new(h);
        h->summary = node_pin_held(now) ? strv_join(now->reasons, "; ") : NULL;
        return !!h->summary != !!h->before_summary ||
               (h->summary && strcmp(h->summary, h->before_summary) != 0);
}

PinChange pin_holder_last_change(const PinHolder *h) {
        if (!h)
                return (PinChange) {};
        return (PinChange) {
                .before = node_pin_held(h->before) ? h->before : NULL,
                .before_summary = node_pin_held(h->before) ? h->before_summary : NULL,
                .now = h->now,
                .problems_new = h->problems_new,
        };
}

const NodePin *pin_holder_pin(const PinHolder *h) {
        return pin_holder_held(h) ? h->now : NULL;
}

bool pin_holder_has_opens(const PinHolder *h) {
        return h && node_pin_held(h->now) && h->now->n_opens > 0;
}
