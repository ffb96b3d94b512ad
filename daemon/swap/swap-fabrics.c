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

/* The next connect in delay_usec (CLOCK_BOOTTIME: a suspended node's
 * sleep counts, as the kernel's own reconnect_delay timer does not care
 * either way, and the targets' deadlines are wall-clock). The timer's
 * handler (the manager's) calls swap_fabrics_retry_due(). */
static void retry_in(const SwapLoop *loop, uint64_t delay_usec) {
        int r;

        r = swap_loop_arm(loop, SWAP_TIMER_FABRICS_RETRY, boottime_usec() + delay_usec);
        if (r < 0)
                log_warning_errno(r, "Cannot arm the NVMe-oF retry timer: the pending connections wait for "
                                     "the next load, restore or start: %m");
}

static void retry_cancel(const SwapLoop *loop) {
        swap_loop_disarm(loop, SWAP_TIMER_FABRICS_RETRY);
}

void swap_fabrics_retry_due(SwapFabrics *fab, const SwapMachine *s, const SwapFollow *follow, const SwapLoop *loop) {
        swap_fabrics_connect(fab, s, follow, loop, "on a later try");
}

/* What was wanted while another request was awaited, capture first (an
 * unload waits on it). */
void swap_fabrics_ask_wanted(SwapFabrics *fab, const SwapMachine *s, const SwapFollow *follow, const SwapLoop *loop) {
        const char *after;
        int r;

        if (!fab->watch || fabrics_watch_busy(fab->watch) || s->stopping)
                return;
        if (fab->capture_wanted) {
                r = fabrics_watch_request(fab->watch, "capture", FABRICS_CAPTURE_DEADLINE_USEC);
                if (r >= 0) {
                        fab->capture_wanted = false;
                        log_info("Asked " FABRICS_UNIT ".service to capture the node's NVMe over Fabrics "
                                 "connections before the unload; the unload waits for its answer.");
                        return;
                }
                fab->capture_wanted = false;
                fab->capture_failed = true;
                report_event(LOG_WARNING, SWAPGUARD_MESSAGE_FABRICS_UNIT_FAILED,
                             &(ReportFields) { .state = swap_state_to_string(s->state),
                                               .container_id = swap_record_container_id(follow, s) },
                             "Cannot ask " FABRICS_UNIT ".service for the capture: cannot write "
                             WATCH_FABRICS_REQUEST " (%s). Not unloading; tried again later.", strerror(-r));
                return;
        }
        after = fab->connect_after;
        if (!after)
                return;
        r = fabrics_watch_request(fab->watch, "connect", FABRICS_CONNECT_DEADLINE_USEC);
        if (r < 0) {
                log_warning_errno(r, "Cannot ask " FABRICS_UNIT ".service to connect the NVMe over Fabrics "
                                     "connections %s: cannot write " WATCH_FABRICS_REQUEST ": %m. Tried again later.",
                                  after);
                retry_in(loop, RETRY_NO_ANSWER_USEC);
        }
}

int swap_fabrics_before_unload(SwapFabrics *fab, const SwapMachine *s, const SwapFollow *follow, const NodeOps *ops) {
        NodeFabrics *f = NULL;
        int r;

        if (!ops->fabrics_read)
                return 0;
        r = ops->fabrics_read(ops->userdata, &f);
        if (r < 0)
                return r; /* the caller does not unload: nothing could reconnect them */
        if (f->n == 0) {
                node_fabrics_free(f);
                return 0;
        }
        if (ops->observe) {
                /* Observe changes nothing: no capture, said as it would be. */
                swap_fabrics_report_drop(s, follow, true, f);
                node_fabrics_free(f);
                return 0;
        }
        if (!fab->watch) {
                node_fabrics_free(f);
                return -ENOTCONN; /* no capture can be asked for: nothing could connect them again */
        }
        node_fabrics_free(f);
        if (fab->captured) {
                /* Said once per capture, however often the unload is tried. */
                if (s->record.fabrics && !fab->drop_said) {
                        swap_fabrics_report_drop(s, follow, false, s->record.fabrics);
                        fab->drop_said = true;
                }
                return 0;
        }
        return 1;
}

void swap_fabrics_capture(SwapFabrics *fab, const SwapMachine *s, const SwapFollow *follow, const SwapLoop *loop) {
        if (!fab->watch || streq_ptr(fabrics_watch_busy(fab->watch), "capture"))
                return;
        fab->capture_wanted = true;
        swap_fabrics_ask_wanted(fab, s, follow, loop);
}

static void connect_as(SwapFabrics *fab, const SwapMachine *s, const SwapFollow *follow, const SwapLoop *loop,
                       const char *after, bool quiet) {
        /* Observe too: a record an enforce instance left names what the
         * node lost; connecting it takes nothing from the node. */
        if (!fab->watch)
                return;
        retry_cancel(loop);
        /* quiet only while every connect wanted is the tidying one */
        fab->connect_quiet = quiet && (!fab->connect_after || fab->connect_quiet);
        if (!fab->connect_after || !streq(fab->connect_after, after)) {
                free(fab->connect_after);
                fab->connect_after = strdup(after);
                if (!fab->connect_after) {
                        log_oom();
                        return;
                }
        }
        /* The one awaited may have run before what `after` names (a load). */
        if (streq_ptr(fabrics_watch_busy(fab->watch), "connect"))
                fab->connect_again = true;
        swap_fabrics_ask_wanted(fab, s, follow, loop);
}

void swap_fabrics_unload_over(SwapFabrics *fab, const SwapMachine *s, const SwapFollow *follow, const SwapLoop *loop,
                              bool dropped) {
        bool captured = fab->captured;

        fab->captured = false;
        if (!captured || dropped)
                return;
        /* Nothing dropped: the connect finds them live and empties the record. */
        connect_as(fab, s, follow, loop, "after the unload that did not happen", true);
}

void swap_fabrics_connect(SwapFabrics *fab, const SwapMachine *s, const SwapFollow *follow, const SwapLoop *loop,
                          const char *after) {
        connect_as(fab, s, follow, loop, after, false);
}

void swap_fabrics_start(SwapFabrics *fab, const SwapMachine *s, const SwapFollow *follow, const SwapLoop *loop) {
        _cleanup_free_ char *record = NULL, *status = swap_fabrics_status(s);

        report_status_fabrics(status); /* what the previous instance knew, until the next answer */

        if (!fab->watch || host_path(WATCH_FABRICS_RECORD, &record) < 0 ||
            path_exists(record) <= 0)
                return;
        /* Unloaded: the load or the restore to come connects. */
        if (swap_state_driver_to_come(s->state)) {
                log_info("NVMe over Fabrics record %s found: its connections are connected again after the load "
                         "or the restore.", record);
                return;
        }
        swap_fabrics_connect(fab, s, follow, loop, "on start");
}

static SwapFabricsNext capture_answered(SwapFabrics *fab, SwapMachine *s, const SwapFollow *follow,
                                        const FabricsResult *res, const char *error) {
        if (!res || error) {
                fab->capture_failed = true;
                report_event(LOG_WARNING, SWAPGUARD_MESSAGE_FABRICS_UNIT_FAILED,
                             &(ReportFields) { .state = swap_state_to_string(s->state),
                                               .container_id = swap_record_container_id(follow, s) },
                             "No capture of the NVMe over Fabrics connections: %s. Not unloading (it would drop "
                             "them with nothing to connect them again); tried again in %llu s.",
                             error ?: "no answer", (unsigned long long) (RETRY_NO_ANSWER_USEC / 1000000ULL));
                swap_record_message(s, "waiting: no answer from " FABRICS_UNIT ".service to the capture (journalctl "
                                       "-u " FABRICS_UNIT ")");
                return SWAP_FABRICS_NEXT_RECHECK_LATER;
        }
        if (fab->capture_failed)
                log_info(FABRICS_UNIT ".service answered the capture now.");
        fab->capture_failed = false;
        fab->captured = true;
        swap_fabrics_record_captured(s, res);
        fab->drop_said = false; /* the new list is told as dropped at the unload */
        return SWAP_FABRICS_NEXT_RECHECK;
}

static void connect_answered(SwapFabrics *fab, SwapMachine *s, const SwapFollow *follow, const SwapLoop *loop,
                             const FabricsResult *res, const char *error) {
        const char *after = fab->connect_after ?: "";
        uint64_t delay;

        if (!res || (error && res->n_connections == 0)) {
                report_event(LOG_WARNING, SWAPGUARD_MESSAGE_FABRICS_UNIT_FAILED,
                             &(ReportFields) { .state = swap_state_to_string(s->state),
                                               .container_id = swap_record_container_id(follow, s) },
                             "No connect of the NVMe over Fabrics connections %s: %s. Asked again in %llu s.",
                             after, error ?: "no answer", (unsigned long long) (RETRY_NO_ANSWER_USEC / 1000000ULL));
                retry_in(loop, RETRY_NO_ANSWER_USEC);
                return;
        }
        swap_fabrics_record_connected(s, follow, res, after, fab->connect_quiet);
        delay = fabrics_result_next_delay(res, now_realtime_usec(), RETRY_MAX_USEC);
        if (delay != UINT64_MAX)
                retry_in(loop, delay);
}

SwapFabricsNext swap_fabrics_result(SwapFabrics *fab, SwapMachine *s, const SwapFollow *follow, const SwapLoop *loop,
                                    const char *verb, const FabricsResult *res, const char *error) {
        SwapFabricsNext next = SWAP_FABRICS_NEXT_NONE;
        _cleanup_free_ char *status = NULL;

        if (streq_ptr(verb, "capture"))
                next = capture_answered(fab, s, follow, res, error);
        else {
                connect_answered(fab, s, follow, loop, res, error);
                if (fab->connect_again) {
                        fab->connect_again = false;
                        retry_cancel(loop);
                } else {
                        free(fab->connect_after);
                        fab->connect_after = NULL;
                        fab->connect_quiet = false;
                }
        }
        status = swap_fabrics_status(s);
        report_status_fabrics(status);
        return next;
}

void swap_fabrics_capture_stale(SwapFabrics *fab) {
        fab->captured = false;
}

void swap_fabrics_free(SwapFabrics *fab, const SwapLoop *loop) {
        fabrics_watch_free(fab->watch);
        fab->watch = NULL;
        retry_cancel(loop);
        free(fab->connect_after);
        fab->connect_after = NULL;
}

/* The first transport of `needed` that tree (openable) has no build of. */
static const char *missing_in(const char *tree, char *const *needed) {
        STRV_FOREACH(t, needed)
                if (container_tree_build(tree, *t) == TREE_BUILD_ABSENT)
                        return *t;
        return NULL;
}

static void report_no_transport(const SwapMachine *s, const SwapFollow *follow, const char *module,
                                const NodeFabrics *f) {
        _cleanup_free_ char *which = NULL;
        char **lines = NULL;
        const char *id = swap_record_container_id(follow, s);

        for (size_t i = 0; i < f->n; i++)
                (void) strv_extend(&lines, f->items[i].description ?: "?");
        which = strv_join(lines, "; ");
        strv_free(lines);
        report_event(LOG_WARNING, SWAPGUARD_MESSAGE_FABRICS_NO_TRANSPORT,
                     &(ReportFields) { .state = swap_state_to_string(s->state), .module = module, .container_id = id },
                     "Driver container %.12s has no build of %s, which the node's NVMe over Fabrics connections need "
                     "(%s): not a swap, the in-tree NVMe stack stays. Fix: a driver image whose NVMe build ships %s, "
                     "or disconnect those connections before the swap.",
                     id ?: "?", module, which ?: "?", module);
}

/* The build is ruled out for a transport it lacks: told, then kept (the
 * follow's decision, the record's message). */
static void rule_out(SwapFollow *follow, SwapMachine *s, const char *module, const NodeFabrics *f) {
        report_no_transport(s, follow, module, f);
        follow->build_ruled_out = true;
        swap_record_message(s, "no-build: the container has no build of %s, which the NVMe over Fabrics "
                               "connections need", module);
}

void swap_fabrics_container_followed(SwapFollow *follow, SwapMachine *s, const NodeOps *ops, const char *tree,
                                     TreeBuild build) {
        NodeFabrics *f = NULL;
        const char *module;

        /* Only a tree that holds a build already can be judged (a sources
         * build is compiled later: the check before the load decides then). */
        if (build != TREE_BUILD_PRESENT || follow->build_ruled_out || !tree || !ops->fabrics_read ||
            ops->fabrics_read(ops->userdata, &f) < 0)
                return;
        module = missing_in(tree, f->transports);
        if (module)
                rule_out(follow, s, module, f);
        node_fabrics_free(f);
}

bool swap_fabrics_tree_lacks_transport(SwapFollow *follow, SwapMachine *s, const char *tree) {
        _cleanup_free_ char *path = NULL;
        _cleanup_strv_free_ char **needed = NULL;
        const NodeFabrics *f = s->record.fabrics;
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
        rule_out(follow, s, module, f);
        return true;
}

bool swap_fabrics_only_node(const NodeOps *ops, const NodeStack *stack, StackHealth h) {
        const NodeModule *fabrics;
        unsigned pci = 1;

        /* Only when the PCI bus can be seen and has no NVMe function at all:
         * nvme removed behind our back on a node with drives (their
         * functions then unbound, still there) stays a broken stack, and so
         * does any node whose bus cannot be read. */
        if (h.what != STACK_CORE_WITHOUT_NVME || !ops->nvme_pci_functions ||
            ops->nvme_pci_functions(ops->userdata, &pci) < 0 || pci > 0)
                return false;
        fabrics = node_stack_find(stack, "nvme_fabrics");
        return fabrics && fabrics->origin != NODE_ORIGIN_ABSENT;
}
