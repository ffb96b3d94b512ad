/* SPDX-License-Identifier: Apache-2.0 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "container/container-tree.h"
#include "host/host-root.h"
#include "nvme/nvme-controllers.h"
#include "publish/log.h"
#include "publish/report.h"
#include "swap/swap-fabrics-report.h"
#include "swap/swap-fabrics.h"
#include "swap/swap-snapshot.h"
#include "swap/swap-record.h"
#include "util/fileio.h"
#include "watch/fabrics-watch.h"
#include "util/strv.h"

/* A connect the unit never answered is asked for again after this; a
 * capture the same (the blocked unload tries again, manager-fabrics.c). */
#define RETRY_NO_ANSWER_USEC (60ULL * 1000000ULL)
/* A next try further than this is taken as a clock step: asked sooner. */
#define RETRY_MAX_USEC (3600ULL * 1000000ULL)

static bool streq_ptr(const char *a, const char *b) {
        return a && b ? streq(a, b) : a == b;
}

static uint64_t boottime_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_BOOTTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

static void ask(Manager *m);

/* The next connect in delay_usec (CLOCK_BOOTTIME: a suspended node's
 * sleep counts, as the kernel's own reconnect_delay timer does not care
 * either way, and the targets' deadlines are wall-clock). The timer's
 * handler (the manager's) calls swap_fabrics_retry_due(). */
static void retry_in(Manager *m, uint64_t delay_usec) {
        int r;

        r = swap_loop_arm(&m->loop, SWAP_TIMER_FABRICS_RETRY, boottime_usec() + delay_usec);
        if (r < 0)
                log_warning_errno(r, "Cannot arm the NVMe-oF retry timer: the pending connections wait for "
                                     "the next load, restore or start: %m");
}

static void retry_cancel(Manager *m) {
        swap_loop_disarm(&m->loop, SWAP_TIMER_FABRICS_RETRY);
}

void swap_fabrics_retry_due(Manager *m) {
        swap_fabrics_connect(m, "on a later try");
}

/* What was wanted while another request was awaited, capture first (an
 * unload waits on it). */
static void ask(Manager *m) {
        const char *after;
        int r;

        if (!m->fabrics.watch || fabrics_watch_busy(m->fabrics.watch) || m->swap.stopping)
                return;
        if (m->fabrics.capture_wanted) {
                r = fabrics_watch_request(m->fabrics.watch, "capture", FABRICS_CAPTURE_DEADLINE_USEC);
                if (r >= 0) {
                        m->fabrics.capture_wanted = false;
                        log_info("Asked " FABRICS_UNIT ".service to capture the node's NVMe over Fabrics "
                                 "connections before the unload; the unload waits for its answer.");
                        return;
                }
                m->fabrics.capture_wanted = false;
                m->fabrics.capture_failed = true;
                report_event(LOG_WARNING, SWAPGUARD_MESSAGE_FABRICS_UNIT_FAILED,
                             &(ReportFields) { .state = swap_state_to_string(m->swap.state),
                                               .container_id = swap_record_container_id(&m->follow, &m->swap) },
                             "Cannot ask " FABRICS_UNIT ".service for the capture: cannot write "
                             WATCH_FABRICS_REQUEST " (%s). Not unloading; tried again later.", strerror(-r));
                return;
        }
        after = m->fabrics.connect_after;
        if (!after)
                return;
        r = fabrics_watch_request(m->fabrics.watch, "connect", FABRICS_CONNECT_DEADLINE_USEC);
        if (r < 0) {
                log_warning_errno(r, "Cannot ask " FABRICS_UNIT ".service to connect the NVMe over Fabrics "
                                     "connections %s: cannot write " WATCH_FABRICS_REQUEST ": %m. Tried again later.",
                                  after);
                retry_in(m, RETRY_NO_ANSWER_USEC);
        }
}

int swap_fabrics_before_unload(Manager *m) {
        NodeFabrics *f = NULL;
        int r;

        if (!m->ops->fabrics_read)
                return 0;
        r = m->ops->fabrics_read(m->ops->userdata, &f);
        if (r < 0)
                return r; /* the caller does not unload: nothing could reconnect them */
        if (f->n == 0) {
                node_fabrics_free(f);
                return 0;
        }
        if (m->ops->observe) {
                /* Observe changes nothing: no capture, said as it would be. */
                swap_fabrics_report_drop(m, f);
                node_fabrics_free(f);
                return 0;
        }
        if (!m->fabrics.watch) {
                node_fabrics_free(f);
                return -ENOTCONN; /* no capture can be asked for: nothing could connect them again */
        }
        node_fabrics_free(f);
        if (m->fabrics.captured) {
                swap_fabrics_report_drop(m, m->swap.record.fabrics);
                return 0;
        }
        return 1;
}

void swap_fabrics_capture(Manager *m) {
        if (!m->fabrics.watch || streq_ptr(fabrics_watch_busy(m->fabrics.watch), "capture"))
                return;
        m->fabrics.capture_wanted = true;
        ask(m);
}

static void connect_as(Manager *m, const char *after, bool quiet) {
        /* Observe too: a record an enforce instance left names what the
         * node lost; connecting it takes nothing from the node. */
        if (!m->fabrics.watch)
                return;
        retry_cancel(m);
        /* quiet only while every connect wanted is the tidying one */
        m->fabrics.connect_quiet = quiet && (!m->fabrics.connect_after || m->fabrics.connect_quiet);
        if (!m->fabrics.connect_after || !streq(m->fabrics.connect_after, after)) {
                free(m->fabrics.connect_after);
                m->fabrics.connect_after = strdup(after);
                if (!m->fabrics.connect_after) {
                        log_oom();
                        return;
                }
        }
        /* The one awaited may have run before what `after` names (a load). */
        if (streq_ptr(fabrics_watch_busy(m->fabrics.watch), "connect"))
                m->fabrics.connect_again = true;
        ask(m);
}

void swap_fabrics_unload_over(Manager *m, bool dropped) {
        bool captured = m->fabrics.captured;

        m->fabrics.captured = false;
        if (!captured || dropped)
                return;
        /* Nothing dropped: the connect finds them live and empties the record. */
        connect_as(m, "after the unload that did not happen", true);
}

void swap_fabrics_connect(Manager *m, const char *after) {
        connect_as(m, after, false);
}

void swap_fabrics_start(Manager *m) {
        _cleanup_free_ char *record = NULL, *status = swap_fabrics_status(&m->swap);

        report_status_fabrics(status); /* what the previous instance knew, until the next answer */

        if (!m->fabrics.watch || host_path(WATCH_FABRICS_RECORD, &record) < 0 ||
            path_exists(record) <= 0)
                return;
        /* Unloaded: the load or the restore to come connects. */
        if (swap_state_driver_to_come(m->swap.state)) {
                log_info("NVMe over Fabrics record %s found: its connections are connected again after the load "
                         "or the restore.", record);
                return;
        }
        swap_fabrics_connect(m, "on start");
}

static SwapFabricsNext capture_answered(Manager *m, const FabricsResult *res, const char *error) {
        if (!res || error) {
                m->fabrics.capture_failed = true;
                report_event(LOG_WARNING, SWAPGUARD_MESSAGE_FABRICS_UNIT_FAILED,
                             &(ReportFields) { .state = swap_state_to_string(m->swap.state),
                                               .container_id = swap_record_container_id(&m->follow, &m->swap) },
                             "No capture of the NVMe over Fabrics connections: %s. Not unloading (it would drop "
                             "them with nothing to connect them again); tried again in %llu s.",
                             error ?: "no answer", (unsigned long long) (RETRY_NO_ANSWER_USEC / 1000000ULL));
                swap_record_message(&m->swap, "waiting: no answer from " FABRICS_UNIT ".service to the capture (journalctl "
                                       "-u " FABRICS_UNIT ")");
                return SWAP_FABRICS_NEXT_RECHECK_LATER;
        }
        if (m->fabrics.capture_failed)
                log_info(FABRICS_UNIT ".service answered the capture now.");
        m->fabrics.capture_failed = false;
        m->fabrics.captured = true;
        swap_fabrics_record_captured(m, res);
        return SWAP_FABRICS_NEXT_RECHECK;
}

static void connect_answered(Manager *m, const FabricsResult *res, const char *error) {
        const char *after = m->fabrics.connect_after ?: "";
        uint64_t delay;

        if (!res || (error && res->n_connections == 0)) {
                report_event(LOG_WARNING, SWAPGUARD_MESSAGE_FABRICS_UNIT_FAILED,
                             &(ReportFields) { .state = swap_state_to_string(m->swap.state),
                                               .container_id = swap_record_container_id(&m->follow, &m->swap) },
                             "No connect of the NVMe over Fabrics connections %s: %s. Asked again in %llu s.",
                             after, error ?: "no answer", (unsigned long long) (RETRY_NO_ANSWER_USEC / 1000000ULL));
                retry_in(m, RETRY_NO_ANSWER_USEC);
                return;
        }
        swap_fabrics_record_connected(m, res, after, m->fabrics.connect_quiet);
        delay = fabrics_result_next_delay(res, now_realtime_usec(), RETRY_MAX_USEC);
        if (delay != UINT64_MAX)
                retry_in(m, delay);
}

SwapFabricsNext swap_fabrics_result(Manager *m, const char *verb, const FabricsResult *res, const char *error) {
        SwapFabricsNext next = SWAP_FABRICS_NEXT_NONE;
        _cleanup_free_ char *status = NULL;

        if (streq_ptr(verb, "capture"))
                next = capture_answered(m, res, error);
        else {
                connect_answered(m, res, error);
                if (m->fabrics.connect_again) {
                        m->fabrics.connect_again = false;
                        retry_cancel(m);
                } else {
                        free(m->fabrics.connect_after);
                        m->fabrics.connect_after = NULL;
                        m->fabrics.connect_quiet = false;
                }
        }
        status = swap_fabrics_status(&m->swap);
        report_status_fabrics(status);
        swap_loop_save(&m->loop, SWAP_SAVE_CHANGED);
        swap_status_update(&m->swap, &m->follow);
        ask(m);
        return next;
}

void swap_fabrics_free(Manager *m) {
        fabrics_watch_free(m->fabrics.watch);
        m->fabrics.watch = NULL;
        retry_cancel(m);
        free(m->fabrics.connect_after);
        m->fabrics.connect_after = NULL;
}

/* The first transport of `needed` that tree (openable) has no build of. */
static const char *missing_in(const char *tree, char *const *needed) {
        STRV_FOREACH(t, needed)
                if (container_tree_build(tree, *t) == TREE_BUILD_ABSENT)
                        return *t;
        return NULL;
}

static void report_no_transport(Manager *m, const char *module, const NodeFabrics *f) {
        _cleanup_free_ char *which = NULL;
        char **lines = NULL;
        const char *id = swap_record_container_id(&m->follow, &m->swap);

        for (size_t i = 0; i < f->n; i++)
                (void) strv_extend(&lines, f->items[i].description ?: "?");
        which = strv_join(lines, "; ");
        strv_free(lines);
        m->follow.build_ruled_out = true;
        report_event(LOG_WARNING, SWAPGUARD_MESSAGE_FABRICS_NO_TRANSPORT,
                     &(ReportFields) { .state = swap_state_to_string(m->swap.state), .module = module, .container_id = id },
                     "Driver container %.12s has no build of %s, which the node's NVMe over Fabrics connections need "
                     "(%s): not a swap, the in-tree NVMe stack stays. Fix: a driver image whose NVMe build ships %s, "
                     "or disconnect those connections before the swap.",
                     id ?: "?", module, which ?: "?", module);
        swap_record_message(&m->swap, "no-build: the container has no build of %s, which the NVMe over Fabrics "
                               "connections need", module);
}

void swap_fabrics_container_followed(Manager *m, const char *tree, TreeBuild build) {
        NodeFabrics *f = NULL;
        const char *module;

        /* Only a tree that holds a build already can be judged (a sources
         * build is compiled later: the check before the load decides then). */
        if (build != TREE_BUILD_PRESENT || m->follow.build_ruled_out || !tree || !m->ops->fabrics_read ||
            m->ops->fabrics_read(m->ops->userdata, &f) < 0)
                return;
        module = missing_in(tree, f->transports);
        if (module)
                report_no_transport(m, module, f);
        node_fabrics_free(f);
}

bool swap_fabrics_tree_lacks_transport(Manager *m, const char *tree) {
        _cleanup_free_ char *path = NULL;
        _cleanup_strv_free_ char **needed = NULL;
        const NodeFabrics *f = m->swap.record.fabrics;
        const char *module;

        /* The connections are down by now: the capture named them. */
        if (!f || host_path(tree, &path) < 0)
                return false;
        for (size_t i = 0; i < f->n; i++) {
                const char *t = f->items[i].transport ? nvme_transport_module(f->items[i].transport) : NULL;

                if (f->items[i].outcome == NODE_FABRICS_PENDING && t && !strv_contains(needed, t))
                        (void) strv_extend(&needed, t);
        }
        module = missing_in(path, needed);
        if (!module)
                return false;
        report_no_transport(m, module, f);
        return true;
}

bool swap_fabrics_only_node(Manager *m, StackHealth h) {
        const NodeStack *stack = NULL;
        const NodeModule *fabrics;
        unsigned pci = 1;

        /* Only when the PCI bus can be seen and has no NVMe function at all:
         * nvme removed behind our back on a node with drives (their
         * functions then unbound, still there) stays a broken stack, and so
         * does any node whose bus cannot be read. */
        if (h.what != STACK_CORE_WITHOUT_NVME || !m->ops->nvme_pci_functions ||
            m->ops->nvme_pci_functions(m->ops->userdata, &pci) < 0 || pci > 0 ||
            swap_snapshot_stack(&m->step, m->ops, &m->loop, &stack) < 0)
                return false;
        fabrics = node_stack_find(stack, "nvme_fabrics");
        return fabrics && fabrics->origin != NODE_ORIGIN_ABSENT;
}
