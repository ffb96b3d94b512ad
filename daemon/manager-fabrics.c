/* SPDX-License-Identifier: Apache-2.0 */
#include <time.h>

#include "manager-dispatch.h"
#include "manager-fabrics.h"
#include "manager-sources.h"
#include "publish/log.h"
#include "watch/fabrics-watch.h"
#include "swap/swap-fabrics.h"
#include "swap/swap-record.h"

#define CAPTURE_RETRY_USEC (60ULL * 1000000ULL)

static void recheck(Manager *m) {
        /* Only a blocked unload waits on a capture; any other state has
         * moved on (a container gone, a stop) and needs nothing. */
        if (m->swap.started && !m->swap.stopping && swap_state_waits_for_usage(m->swap.state))
                manager_dispatch(m, SWAP_EVENT_USAGE_CHANGED);
        else
                m->fabrics.captured = false; /* a later unload captures anew, never from this one */
}

static int on_capture_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        recheck(userdata);
        return 0;
}

static void recheck_later(Manager *m) {
        struct timespec ts;
        int r;

        if (!m->sources->capture_retry) {
                r = sd_event_add_time(m->event, &m->sources->capture_retry, CLOCK_BOOTTIME, UINT64_MAX, 0,
                                      on_capture_retry, m);
                if (r < 0) {
                        log_warning_errno(r, "Cannot arm the capture's retry: the unload is tried again at the next "
                                             "event: %m");
                        return;
                }
                (void) sd_event_source_set_description(m->sources->capture_retry, "fabrics-capture-retry");
        }
        clock_gettime(CLOCK_BOOTTIME, &ts);
        (void) sd_event_source_set_time(m->sources->capture_retry, (uint64_t) ts.tv_sec * 1000000ULL +
                                                                          (uint64_t) ts.tv_nsec / 1000ULL +
                                                                          CAPTURE_RETRY_USEC);
        (void) sd_event_source_set_enabled(m->sources->capture_retry, SD_EVENT_ONESHOT);
}

SwapFabricsNext manager_fabrics_answered(Manager *m, const char *verb, const FabricsResult *res, const char *error) {
        SwapFabricsNext next;

        next = swap_fabrics_result(&m->fabrics, &m->swap, &m->follow, &m->loop, verb, res, error);
        /* The answer changed the record: saved first (outside a step: now),
         * then STATUS= from it, then what was wanted meanwhile is asked. */
        manager_save(m, SWAP_SAVE_CHANGED);
        swap_status_update(&m->swap, &m->follow);
        swap_fabrics_ask_wanted(&m->fabrics, &m->swap, &m->follow, &m->loop);
        return next;
}

static void on_fabrics(FabricsWatch *w, const char *verb, const FabricsResult *res, const char *error,
                       void *userdata) {
        Manager *m = userdata;

        switch (manager_fabrics_answered(m, verb, res, error)) {
        case SWAP_FABRICS_NEXT_RECHECK:
                recheck(m);
                break;
        case SWAP_FABRICS_NEXT_RECHECK_LATER:
                recheck_later(m);
                break;
        default:
                break;
        }
}

void manager_fabrics_setup(Manager *m) {
        int r;

        r = fabrics_watch_new(m->event, on_fabrics, m, &m->fabrics.watch);
        if (r < 0)
                log_warning_errno(r, "Cannot watch " WATCH_FABRICS_RESULT ": NVMe over Fabrics connections are "
                                     "neither captured nor connected again, and an unload that would drop them "
                                     "does not happen: %m");
}
