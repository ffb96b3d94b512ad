/* SPDX-License-Identifier: Apache-2.0 */
/* The capture pass and forget (see fabrics-capture.h). */
#include <stdlib.h>
#include <string.h>

#include "actions/fabrics-capture.h"
#include "host/host-root.h"
#include "nvme/fabrics-record.h"
#include "nvme/fabrics-secrets.h"
#include "nvme/fabrics-topology-sysfs.h"
#include "util/string-util.h"

static int fail_path(FabricsPassResult *r, const char *path, int error) {
        _cleanup_free_ char *full = NULL;

        if (error == -ENOMEM || host_path(path, &full) < 0)
                return -ENOMEM;
        return fabrics_pass_result_fail(r, "%s: %s", full, strerror(-error)) < 0 ? -ENOMEM : 0;
}

/* The new record: every live connection, pending from now; then what the
 * old record has that is not live. */
static int merge(FabricsPassResult *r, const FabricsTopology *live, const FabricsTopology *old, uint64_t now,
                 FabricsTopology *into) {
        for (size_t i = 0; i < live->n_controllers; i++) {
                FabricsController *c;

                if (fabrics_topology_add_copy(into, &live->controllers[i]) < 0)
                        return -ENOMEM;
                c = &into->controllers[into->n_controllers - 1];
                c->entry = (FabricsEntryStatus) { .state = FABRICS_ENTRY_PENDING, .captured_at = now };
                if (!fabrics_pass_result_add(r, c, FABRICS_OUTCOME_CAPTURED))
                        return -ENOMEM;
        }
        for (size_t i = 0; i < old->n_controllers; i++) {
                const FabricsController *o = &old->controllers[i];

                if (fabrics_topology_find(live, o))
                        continue;
                if (fabrics_topology_add_copy(into, o) < 0)
                        return -ENOMEM;
                if (o->entry.state == FABRICS_ENTRY_LOST) {
                        FabricsPassEntry *e = fabrics_pass_result_add(r, o, FABRICS_OUTCOME_LOST);

                        if (!e)
                                return -ENOMEM;
                        e->error_kind = o->entry.last_error_kind;
                        e->error = o->entry.last_errno;
                }
        }
        return 0;
}

int fabrics_capture_pass(uint64_t now_usec, FabricsPassResult **ret) {
        _cleanup_(fabrics_pass_done) FabricsPass p = FABRICS_PASS_NULL;
        _cleanup_(fabrics_topology_freep) FabricsTopology *live = NULL, *record = NULL;
        FabricsPassResult *r;
        int k;

        k = fabrics_pass_begin(FABRICS_VERB_CAPTURE, &p);
        if (k < 0)
                return k;
        r = p.result;
        if (k == 0) {
                k = fabrics_topology_read(&live);
                if (k < 0)
                        k = fail_path(r, "/sys/class/nvme", k);
                else if (!(record = calloc(1, sizeof(FabricsTopology))))
                        return -ENOMEM;
                else if ((k = merge(r, live, p.record, now_usec, record)) < 0)
                        return k;
                /* Secrets first: a record is never on disk without the
                 * secrets it needs. */
                else if ((k = fabrics_secrets_save(record, live)) < 0)
                        k = fail_path(r, FABRICS_SECRETS_PATH, k);
                else if ((k = fabrics_record_save(record)) < 0)
                        k = fail_path(r, FABRICS_RECORD_PATH, k);
                if (k < 0)
                        return k;
        }
        fabrics_pass_result_settle(r);
        *ret = TAKE_PTR(p.result);
        return 0;
}

int fabrics_forget_pass(FabricsPassResult **ret) {
        _cleanup_(fabrics_pass_done) FabricsPass p = FABRICS_PASS_NULL;
        const FabricsTopology *old;
        FabricsPassResult *r;
        int k;

        k = fabrics_pass_begin(FABRICS_VERB_CONNECT, &p);
        if (k < 0)
                return k;
        r = p.result;
        old = p.record;
        for (size_t i = 0; k == 0 && i < old->n_controllers; i++)
                if (!fabrics_pass_result_add(r, &old->controllers[i],
                                             old->controllers[i].entry.state == FABRICS_ENTRY_LOST
                                                     ? FABRICS_OUTCOME_LOST
                                                     : FABRICS_OUTCOME_FAILED))
                        return -ENOMEM;
        if (k == 0 && (k = fabrics_secrets_remove()) < 0)
                k = fail_path(r, FABRICS_SECRETS_PATH, k);
        if (k == 0 && (k = fabrics_record_remove()) < 0)
                k = fail_path(r, FABRICS_RECORD_PATH, k);
        if (k < 0)
                return k;
        r->exit_code = r->error ? FABRICS_EXIT_ERROR : FABRICS_EXIT_OK;
        *ret = TAKE_PTR(p.result);
        return 0;
}
