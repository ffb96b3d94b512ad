/* SPDX-License-Identifier: Apache-2.0 */
/* The node labels' file and its refresh (manager-labels.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "manager-labels.h"
#include "manager-sources.h"
#include "publish/log.h"
#include "publish/node-labels.h"
#include "publish/report.h"
#include "swap/swap-record.h"
#include "util/string-util.h"

#define USEC_PER_SEC 1000000ULL

static bool same_text(const char *a, const char *b) {
        return a == b || (a && b && streq(a, b));
}

/* Why no labels are published now (NULL: they are). */
static char *labels_off(const Manager *m) {
        const char *dir = m->config->node_labels_dir;
        int r;

        if (!dir || dir[0] == '\0')
                return strdup("NodeLabelsDirectory= is empty");
        r = node_labels_directory_exists(dir);
        if (r == 0)
                return strdup_printf("no %s (Node Feature Discovery is not on this node)", dir);
        if (r < 0)
                return strdup_printf("cannot see %s (%s)", dir, strerror(-r));
        return NULL;
}

static void set_off(Manager *m, char *off) {
        ManagerLabels *l = &m->sources->labels;
        bool changed = !l->said || !same_text(off, l->off);
        _cleanup_free_ char *status = NULL;

        free(l->off);
        l->off = off;
        l->said = true;
        if (!changed)
                return;
        if (off) {
                log_info("Node labels off: %s.", off);
                status = strdup_printf("node labels off: %s", off);
        } else
                log_info("Publishing node labels in " NODE_LABELS_SOURCE " for %s.", m->config->node_labels_dir);
        report_status_labels(status);
        if (m->swap.started)
                swap_status_update(&m->swap, &m->follow);
}

static void write_labels(Manager *m, bool refresh) {
        ManagerLabels *l = &m->sources->labels;
        _cleanup_free_ char *said = NULL, *text = NULL;
        char **missing = m->swap.record.missing_namespaces;
        NodeLabelsFacts f = {
                .state = m->swap.state,
                .mode = m->config->mode,
                .gds_ready = node_labels_gds_ready(m->swap.state, m->config->mode, m->swap.record.gds_match,
                                                   missing && missing[0]),
                .gds_hooks = m->swap.record.gds_nvme,
                .expiry_usec = now_realtime_usec() + NODE_LABELS_EXPIRY_SEC * USEC_PER_SEC,
        };
        char *off = labels_off(m);
        int r;

        if (off) {
                /* A file left by an earlier instance, or before the directory
                 * went: no labels (the copier then removes its copy). */
                if (l->written || !l->off)
                        (void) node_labels_remove();
                free(l->written);
                l->written = NULL;
                set_off(m, off);
                return;
        }
        set_off(m, NULL);
        said = strdup_printf("%d %d %d %s", (int) f.state, (int) f.mode, f.gds_ready,
                             node_labels_hooks_value(f.state, f.gds_hooks));
        if (!said) {
                log_oom();
                return;
        }
        if (!refresh && l->written && streq(said, l->written))
                return;
        r = node_labels_to_text(&f, &text);
        if (r >= 0)
                r = node_labels_write(text);
        if (r < 0) {
                log_warning_errno(r, "Cannot write the node labels " NODE_LABELS_SOURCE ", the published ones expire: %m");
                return;
        }
        free(l->written);
        l->written = TAKE_PTR(said);
        /* The next refresh counts from this write. */
        if (l->refresh) {
                (void) sd_event_source_set_time_relative(l->refresh, NODE_LABELS_REFRESH_SEC * USEC_PER_SEC);
                (void) sd_event_source_set_enabled(l->refresh, SD_EVENT_ONESHOT);
        }
}

void manager_labels_update(Manager *m) {
        if (m->swap.started && !m->swap.stopping)
                write_labels(m, /* refresh= */ false);
}

static int on_refresh(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;

        /* Rearmed by the write; and when no labels are published, to see
         * the directory again (Node Feature Discovery installed since). */
        (void) sd_event_source_set_time_relative(s, NODE_LABELS_REFRESH_SEC * USEC_PER_SEC);
        (void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
        if (m->swap.started && !m->swap.stopping)
                write_labels(m, /* refresh= */ true);
        return 0;
}

void manager_labels_setup(Manager *m) {
        _cleanup_(sd_event_source_disable_unrefp) sd_event_source *s = NULL;
        int r;

        /* CLOCK_BOOTTIME: a suspend counts, as it does for the expiry's
         * wall clock. A deadline that means something: the labels expire
         * NODE_LABELS_EXPIRY_SEC after the last write. */
        r = sd_event_add_time_relative(m->event, &s, CLOCK_BOOTTIME, NODE_LABELS_REFRESH_SEC * USEC_PER_SEC,
                                       USEC_PER_SEC, on_refresh, m);
        if (r < 0) {
                log_warning_errno(r, "Cannot arm the node labels' refresh: they expire %us after each change: %m",
                                  NODE_LABELS_EXPIRY_SEC);
                return;
        }
        (void) sd_event_source_set_description(s, "node-labels-refresh");
        m->sources->labels.refresh = TAKE_PTR(s);
}

void manager_labels_stop(Manager *m) {
        ManagerLabels *l = &m->sources->labels;
        _cleanup_free_ char *text = NULL, *off = labels_off(m);
        NodeLabelsFacts f = { .stopped = true, .expiry_usec = now_realtime_usec() };
        int r;

        l->refresh = sd_event_source_disable_unref(l->refresh);
        if (off)
                return;
        r = node_labels_to_text(&f, &text);
        if (r >= 0)
                r = node_labels_write(text);
        if (r < 0)
                log_warning_errno(r, "Cannot write the node labels " NODE_LABELS_SOURCE " at the stop, they expire "
                                  "within %us: %m", NODE_LABELS_EXPIRY_SEC);
        free(l->written);
        l->written = NULL;
}

void manager_labels_free(Manager *m) {
        ManagerLabels *l = &m->sources->labels;

        l->refresh = sd_event_source_disable_unref(l->refresh);
        free(l->written);
        l->written = NULL;
        free(l->off);
        l->off = NULL;
}
