/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "publish/log.h"
#include "node/pin-holder.h"
#include "publish/report.h"
#include "util/strv.h"

struct PinHolder {
        const NodeOps *ops;
        NodePin *now;
        char *summary;  /* the reasons joined, NULL when nothing is pinned */
        char *problems; /* the problems joined, to say them once */
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
        free(h->summary);
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

static void say_pinned(const NodePin *before, const NodePin *now) {
        _cleanup_free_ char *modules = strv_join(now->modules, ", ");

        for (size_t i = 0; now->reasons && now->reasons[i]; i++) {
                const char *device = now->devices ? now->devices[i] : NULL;

                if (before && strv_contains(before->reasons, now->reasons[i]))
                        continue; /* said already */
                report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_PINNED,
                             &(ReportFields) { .module = modules, .device = device },
                             "%s. While it is in use, `rmmod %s` and `modprobe -r %s` fail with "
                             "\"in use\" (the driver container's openibd included); the pin goes within seconds "
                             "once it is free.", now->reasons[i], now->modules[0], now->modules[0]);
        }
}

static void say_problems(PinHolder *h) {
        _cleanup_free_ char *joined = strv_join(h->now ? h->now->problems : NULL, "; ");

        if (!joined || !*joined || (h->problems && strcmp(joined, h->problems) == 0)) {
                if (joined && !*joined) {
                        free(h->problems);
                        h->problems = NULL;
                }
                return;
        }
        for (char **p = h->now->problems; *p; p++)
                report_event(LOG_WARNING, SWAPGUARD_MESSAGE_PIN_PROBLEM, NULL,
                             "Pin incomplete: %s. Until it is held, the modules under that namespace are not "
                             "protected from a foreign rmmod.", *p);
        free(h->problems);
        h->problems = TAKE_PTR(joined);
}

int pin_holder_refresh(PinHolder *h) {
        NodePin *now = NULL;
        bool was, is;
        int r;

        if (!h || !h->ops->pin_refresh)
                return 0;
        r = h->ops->pin_refresh(h->ops->userdata, &now);
        if (r < 0)
                return log_warning_errno(r, "Cannot check NVMe namespace use for the pin, keeping it as it is: %m");
        was = node_pin_held(h->now);
        is = node_pin_held(now);
        if (is)
                say_pinned(was ? h->now : NULL, now);
        else if (was)
                report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_UNPINNED, NULL,
                             "Pin released: no NVMe namespace is in use any more (was: %s); the NVMe modules "
                             "can be removed again.", h->summary ?: "?");
        node_pin_free(h->now);
        h->now = now;
        say_problems(h);
        {
                char *summary = is ? strv_join(now->reasons, "; ") : NULL;
                bool changed = !!summary != !!h->summary || (summary && strcmp(summary, h->summary) != 0);

                free(h->summary);
                h->summary = summary;
                return changed;
        }
}

void pin_holder_driver_container(PinHolder *h, const char *container_id, const char *pod, bool started) {
        if (!pin_holder_held(h))
                return;
        report_event(LOG_WARNING, SWAPGUARD_MESSAGE_PIN_BLOCKS_DRIVER,
                     &(ReportFields) { .container_id = container_id, .pod = pod, .module = h->now->modules[0],
                                       .device = h->now->devices && h->now->devices[0] ? h->now->devices[0] : NULL },
                     started ? "Driver container %.12s started while the pin holds (%s): its `openibd restart` cannot remove %s "
                               "(`modprobe -r %s` fails: in use) and leaves it and mlx_compat loaded: the earlier "
                               "NVMe build stays, and a new driver version may fail to load (openibd exits 1, "
                               "the container restarts) until that is no longer in use. This keeps the mounted "
                               "data safe. To let it restart its drivers, unmount or stop using the namespace; the pin "
                               "goes within seconds."
                             : "Driver container %.12s stopped while the pin holds (%s): its drivers could not be restarted over "
                               "%s (`modprobe -r %s` fails: in use). Unmount or stop using the namespace to let "
                               "it restart them.",
                     container_id ?: "?", h->summary ?: "a namespace is in use", h->now->modules[0],
                     h->now->modules[0]);
}

bool pin_holder_has_opens(const PinHolder *h) {
        return h && node_pin_held(h->now) && h->now->n_opens > 0;
}
