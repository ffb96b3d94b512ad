/* SPDX-License-Identifier: Apache-2.0 */
#include <stddef.h>

#include "publish/log.h"
#include "publish/report.h"
#include "swap/pin-report.h"
#include "util/macro.h"
#include "util/strv.h"

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

void pin_report_refresh(const PinHolder *h) {
        PinChange c = pin_holder_last_change(h);

        if (node_pin_held(c.now))
                say_pinned(c.before, c.now);
        else if (c.before)
                report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_UNPINNED, NULL,
                             "Pin released: no NVMe namespace is in use any more (was: %s); the NVMe modules "
                             "can be removed again.", c.before_summary ?: "?");
        if (c.problems_new)
                for (char *const *p = c.now->problems; *p; p++)
                        report_event(LOG_WARNING, SWAPGUARD_MESSAGE_PIN_PROBLEM, NULL,
                                     "Pin incomplete: %s. Until it is held, the modules under that namespace are not "
                                     "protected from a foreign rmmod.", *p);
}

void pin_holder_driver_container(const PinHolder *h, const char *container_id, const char *pod, bool started) {
        const NodePin *now = pin_holder_pin(h);

        if (!now)
                return;
        report_event(LOG_WARNING, SWAPGUARD_MESSAGE_PIN_BLOCKS_DRIVER,
                     &(ReportFields) { .container_id = container_id, .pod = pod, .module = now->modules[0],
                                       .device = now->devices && now->devices[0] ? now->devices[0] : NULL },
                     started ? "Driver container %.12s started while the pin holds (%s): its `openibd restart` cannot remove %s "
                               "(`modprobe -r %s` fails: in use) and leaves it and mlx_compat loaded: the earlier "
                               "NVMe build stays, and a new driver version may fail to load (openibd exits 1, "
                               "the container restarts) until that is no longer in use. This keeps the mounted "
                               "data safe. To let it restart its drivers, unmount or stop using the namespace; the pin "
                               "goes within seconds."
                             : "Driver container %.12s stopped while the pin holds (%s): its drivers could not be restarted over "
                               "%s (`modprobe -r %s` fails: in use). Unmount or stop using the namespace to let "
                               "it restart them.",
                     container_id ?: "?", pin_holder_summary(h) ?: "a namespace is in use", now->modules[0],
                     now->modules[0]);
}
