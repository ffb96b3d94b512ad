/* SPDX-License-Identifier: Apache-2.0 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "publish/log.h"
#include "swap/observe-report.h"
#include "publish/report.h"
#include "swap/swap-record.h"
#include "util/string-util.h"
#include "util/strv.h"

/* The container a report names: the followed one, else the record's. */
static const char *container_id(const SwapMachine *s, const SwapFollow *f) {
        return swap_record_container_id(f, s);
}

static void record_would(SwapMachine *s, const char *fmt, ...) _printf_(2, 3);
static void record_would(SwapMachine *s, const char *fmt, ...) {
        va_list ap;
        char *line;

        va_start(ap, fmt);
        line = strdup_vprintf(fmt, ap);
        va_end(ap);
        if (!line)
                return;
        free(s->record.would);
        s->record.would = line;
        swap_record_message(s, "%s", line);
}

void observe_report_would_unload(SwapMachine *s, const SwapFollow *f, const char *build, char *const *removed) {
        _cleanup_free_ char *list = strv_join(removed, " ");
        const char *id = container_id(s, f);

        report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_WOULD_UNLOAD,
                     &(ReportFields) { .state = "would-unload", .module = list, .container_id = id,
                                       .pid = f->container.pid },
                     "Observe: would unload the %s NVMe stack (%s) for driver container %.12s; no namespace "
                     "is in use. Nothing was unloaded.",
                     build, list && *list ? list : "nothing loaded", id ?: "?");
        record_would(s, "would unload %s for %.12s", list && *list ? list : "nothing", id ?: "?");
}

void observe_report_would_refuse(SwapMachine *s, const char *blockers) {
        record_would(s, "would refuse: %s", blockers ?: "namespaces in use");
}

void observe_report_would_load(SwapMachine *s, const SwapFollow *f, const NodeLoadResult *l, const char *tree) {
        _cleanup_free_ char *list = l && l->loaded ? strv_join(l->loaded, " ") : NULL;

        report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_WOULD_LOAD,
                     &(ReportFields) { .state = "would-swap", .module = list, .origin = "nvidia",
                                       .container_id = container_id(s, f), .pid = f->container.pid },
                     "Observe: would load %s from the driver container's tree %s; every module is there. "
                     "Nothing was loaded.",
                     list ?: "the stack", tree ?: "?");
        record_would(s, "would load nvidia build (%s) from %s", list ?: "the stack", tree ?: "?");
}

void observe_report_would_restore(SwapMachine *s, const SwapFollow *f, const NodeLoadResult *l) {
        _cleanup_free_ char *list = l && l->loaded ? strv_join(l->loaded, " ") : NULL;
        const char *why = swap_event_to_string(s->restore_cause) ?: "?";

        report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_WOULD_RESTORE,
                     &(ReportFields) { .state = swap_state_to_string(s->state), .module = list,
                                       .origin = "in-tree", .container_id = container_id(s, f) },
                     "Observe: would restore the in-tree NVMe stack (%s) after %s; it never left. "
                     "Nothing was loaded.",
                     list ?: "the stack", why);
        record_would(s, "would restore %s (%s)", list ?: "the in-tree stack", why);
}

void observe_report_start(SwapMachine *s, SwapMode now, const StateFile *previous, SwapState resuming) {
        const char *mode = swap_mode_to_string(now);
        bool switched = previous && previous->mode != now;

        report_set_mode(mode);
        if (now == SWAP_MODE_OBSERVE && swap_state_build_loaded(resuming)) {
                /* Observe never takes a build out, so a swap enforce made stays. */
                report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_MODE, &(ReportFields) { .state = "swapped" },
                             "Mode=observe%s: the node stays as enforce left it, swapped to the out-of-tree "
                             "NVMe build; observe changes nothing. Switch back to enforce to act again.",
                             switched ? " (was enforce)" : "");
                record_would(s, "left as enforce left it: swapped");
                return;
        }
        if (!switched && now == SWAP_MODE_ENFORCE)
                return; /* the common case: nothing new to say */
        report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_MODE,
                     &(ReportFields) { .state = swap_state_to_string(resuming) },
                     "Mode=%s%s%s%s: %s", mode, switched ? " (was " : "",
                     switched ? swap_mode_to_string(previous->mode) : "", switched ? ")" : "",
                     now == SWAP_MODE_OBSERVE
                             ? "following the driver container and reporting what would be done; nothing is "
                               "unloaded, loaded or pinned."
                             : "acting from the current state: an unload observe only rehearsed is made now "
                               "if no namespace is in use.");
}
