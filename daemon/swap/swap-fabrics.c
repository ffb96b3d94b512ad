/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container/container-tree.h"
#include "host/host-root.h"
#include "publish/log.h"
#include "publish/report.h"
#include "swap/swap-fabrics.h"
#include "swap/swap-record.h"
#include "util/strv.h"

#define FIELD_MAX 7

/* The structured fields of one connection's journal entry. */
typedef struct Fields {
        char *items[FIELD_MAX + 1];
        size_t n;
} Fields;

static void fields_add(Fields *f, const char *key, const char *value) {
        if (value && f->n < FIELD_MAX && asprintf(&f->items[f->n], "SWAPGUARD_FABRICS_%s=%s", key, value) >= 0)
                f->n++;
}

static void fields_fill(Fields *f, const GuardFabricsConnection *c) {
        char errno_text[16];

        fields_add(f, "CONTROLLER", c->controller);
        fields_add(f, "TRANSPORT", c->transport);
        fields_add(f, "ADDRESS", c->address);
        fields_add(f, "NQN", c->subsysnqn);
        fields_add(f, "OUTCOME", guard_fabrics_outcome_to_string(c->outcome));
        fields_add(f, "NEW_CONTROLLER", c->new_controller);
        if (c->error) {
                snprintf(errno_text, sizeof(errno_text), "%d", c->error);
                fields_add(f, "ERRNO", errno_text);
        }
}

static void fields_clear(Fields *f) {
        for (size_t i = 0; i < f->n; i++)
                free(f->items[i]);
        f->n = 0;
}

/* The record's list replaced by f (taken). */
static void record_fabrics_set(Manager *m, GuardFabrics *f) {
        guard_fabrics_free(m->record.fabrics);
        m->record.fabrics = f && f->n > 0 ? f : guard_fabrics_free(f);
}

/* The same connections (by description) as the record has, in the same
 * state of being dropped: said already (a blocked unload tried again). */
static bool said_already(const Manager *m, const GuardFabrics *f) {
        const GuardFabrics *old = m->record.fabrics;

        if (!old || old->n != f->n)
                return false;
        for (size_t i = 0; i < f->n; i++)
                if (!streq(old->items[i].description ?: "", f->items[i].description ?: "") ||
                    old->items[i].outcome != f->items[i].outcome)
                        return false;
        return true;
}

int swap_fabrics_before_unload(Manager *m) {
        const bool observe = m->ops->observe;
        GuardFabrics *f = NULL;
        int r;

        if (!m->ops->fabrics_save)
                return 0;
        r = m->ops->fabrics_save(m->ops->userdata, &f);
        if (r < 0)
                return r; /* the caller does not unload: nothing could reconnect them */
        if (f->n == 0 || said_already(m, f)) {
                if (f->n > 0)
                        record_fabrics_set(m, f);
                else
                        guard_fabrics_free(f);
                return 0;
        }
        for (size_t i = 0; i < f->n; i++) {
                Fields x = {};

                fields_fill(&x, &f->items[i]);
                report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_FABRICS_DROP,
                             &(ReportFields) { .state = swap_state_to_string(m->state), .device = f->items[i].controller,
                                               .container_id = swap_record_container_id(m), .extra = x.items },
                             observe ? "Observe: %s: would be disconnected by the unload and reconnected after the load."
                                     : "%s: disconnected by the unload, reconnected after the load.",
                             f->items[i].description ?: "?");
                fields_clear(&x);
        }
        record_fabrics_set(m, f);
        return 0;
}

static void report_outcome(Manager *m, const GuardFabricsConnection *c, const char *after, bool quiet) {
        Fields x = {};
        ReportFields rf = { .state = swap_state_to_string(m->state), .device = c->controller,
                            .container_id = swap_record_container_id(m) };

        fields_fill(&x, c);
        rf.extra = x.items;
        switch (c->outcome) {
        case GUARD_FABRICS_RECONNECTED:
                if (!quiet)
                        report_event(LOG_INFO, SWAPGUARD_MESSAGE_FABRICS_RECONNECTED, &rf,
                                     "%s: reconnected %s as %s, its namespaces back.", c->description ?: "?", after,
                                     c->new_controller ?: "?");
                break;
        case GUARD_FABRICS_ALREADY_LIVE:
                if (!quiet)
                        report_event(LOG_INFO, SWAPGUARD_MESSAGE_FABRICS_RECONNECTED, &rf,
                                     "%s: live again %s (%s), connected by someone else.", c->description ?: "?",
                                     after, c->new_controller ?: "?");
                break;
        case GUARD_FABRICS_NAMESPACES_MISSING:
                report_event(LOG_WARNING, SWAPGUARD_MESSAGE_FABRICS_LOST, &rf,
                             "%s: reconnected %s as %s, but not all its namespaces are back: %s.",
                             c->description ?: "?", after, c->new_controller ?: "?", c->error_message ?: "?");
                break;
        default:
                report_event(LOG_WARNING, SWAPGUARD_MESSAGE_FABRICS_LOST, &rf,
                             "%s: not reconnected %s: %s (%s). Its storage stays disconnected until it is connected "
                             "again (nvme connect, or a restart of nvme-swapguard once the cause is fixed).",
                             c->description ?: "?", after, c->error_message ?: "the kernel gave no reason",
                             strerror(c->error ?: EIO));
                break;
        }
        fields_clear(&x);
}

void swap_fabrics_reconnect(Manager *m, const char *after, bool quiet) {
        GuardFabrics *f = NULL;
        size_t lost = 0;
        int r;

        if (!m->ops->fabrics_reconnect)
                return;
        r = m->ops->fabrics_reconnect(m->ops->userdata, SWAP_FABRICS_TIMEOUT_SEC, &f);
        if (r < 0) {
                log_warning_errno(r, "Cannot reconnect the NVMe over Fabrics connections %s: %m. The record stays "
                                     "pending; the next start tries again.", after);
                return;
        }
        if (f->n == 0) { /* no record: nothing was dropped */
                if (!quiet)
                        record_fabrics_set(m, NULL);
                guard_fabrics_free(f);
                return;
        }
        for (size_t i = 0; i < f->n; i++) {
                report_outcome(m, &f->items[i], after, quiet);
                lost += f->items[i].outcome == GUARD_FABRICS_FAILED ||
                        f->items[i].outcome == GUARD_FABRICS_NAMESPACES_MISSING;
        }
        if (lost > 0)
                swap_record_message(m, "%zu of %zu NVMe over Fabrics connections not back %s", lost, f->n, after);
        /* quiet (the unload refused): nothing was dropped, nothing to show */
        record_fabrics_set(m, quiet && lost == 0 ? guard_fabrics_free(f) : f);
}

void swap_fabrics_start(Manager *m) {
        GuardFabrics *f = NULL;

        if (!m->ops->fabrics_pending || m->ops->fabrics_pending(m->ops->userdata, &f) < 0)
                return;
        if (f->n == 0) {
                guard_fabrics_free(f);
                return;
        }
        /* Unloaded: the load or the restore to come reconnects; show them. */
        if (swap_state_is_unloaded(m->state) || m->state == SWAP_STATE_LOADING ||
            m->state == SWAP_STATE_RESTORING) {
                record_fabrics_set(m, f);
                swap_record_persist(m);
                return;
        }
        guard_fabrics_free(f);
        swap_fabrics_reconnect(m, "on start", false);
        swap_record_persist(m);
}

/* The first transport of `needed` that tree (openable) has no build of. */
static const char *missing_in(const char *tree, char *const *needed) {
        STRV_FOREACH(t, needed)
                if (container_tree_build(tree, *t) == TREE_BUILD_ABSENT)
                        return *t;
        return NULL;
}

static void report_no_transport(Manager *m, const char *module, const GuardFabrics *f) {
        _cleanup_free_ char *which = NULL;
        char **lines = NULL;
        const char *id = swap_record_container_id(m);

        for (size_t i = 0; i < f->n; i++)
                (void) strv_extend(&lines, f->items[i].description ?: "?");
        which = strv_join(lines, "; ");
        strv_free(lines);
        m->build_ruled_out = true;
        report_event(LOG_WARNING, SWAPGUARD_MESSAGE_FABRICS_NO_TRANSPORT,
                     &(ReportFields) { .state = swap_state_to_string(m->state), .module = module, .container_id = id },
                     "Driver container %.12s has no build of %s, which the node's NVMe over Fabrics connections need "
                     "(%s): not a swap, the in-tree NVMe stack stays. Fix: a driver image whose NVMe build ships %s, "
                     "or disconnect those connections before the swap.",
                     id ?: "?", module, which ?: "?", module);
        swap_record_message(m, "no-build: the container has no build of %s, which the NVMe over Fabrics "
                               "connections need", module);
}

void swap_fabrics_container_followed(Manager *m, const char *tree, TreeBuild build) {
        GuardFabrics *f = NULL;
        const char *module;

        /* Only a tree that holds a build already can be judged (a sources
         * build is compiled later: the check before the load decides then). */
        if (build != TREE_BUILD_PRESENT || m->build_ruled_out || !tree || !m->ops->fabrics_read ||
            m->ops->fabrics_read(m->ops->userdata, &f) < 0)
                return;
        module = missing_in(tree, f->transports);
        if (module)
                report_no_transport(m, module, f);
        guard_fabrics_free(f);
}

bool swap_fabrics_tree_lacks_transport(Manager *m, const char *tree) {
        _cleanup_free_ char *path = NULL;
        GuardFabrics *f = NULL;
        const char *module;
        bool lacks = false;

        /* The connections are down by now: the record knows them. */
        if (!m->ops->fabrics_pending || host_path(tree, &path) < 0 ||
            m->ops->fabrics_pending(m->ops->userdata, &f) < 0)
                return false;
        module = missing_in(path, f->transports);
        if (module) {
                report_no_transport(m, module, f);
                lacks = true;
        }
        guard_fabrics_free(f);
        return lacks;
}

bool swap_fabrics_only_node(Manager *m, StackHealth h) {
        GuardStack *stack = NULL;
        const GuardModule *fabrics;
        unsigned pci = 1;
        bool only;

        /* Only when the PCI bus can be seen and has no NVMe function at all:
         * nvme removed behind our back on a node with drives (their
         * functions then unbound, still there) stays a broken stack, and so
         * does any node whose bus cannot be read. */
        if (h.what != STACK_CORE_WITHOUT_NVME || !m->ops->nvme_pci_functions ||
            m->ops->nvme_pci_functions(m->ops->userdata, &pci) < 0 || pci > 0 ||
            m->ops->read_stack(m->ops->userdata, &stack) < 0)
                return false;
        fabrics = guard_stack_find(stack, "nvme_fabrics");
        only = fabrics && fabrics->origin != GUARD_ORIGIN_ABSENT;
        guard_stack_free(stack);
        return only;
}
