/* SPDX-License-Identifier: Apache-2.0 */
/* The result of a capture or connect pass (see fabrics-pass.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actions/fabrics-pass.h"
#include "host/host-root.h"
#include "nvme/fabrics-lock.h"
#include "nvme/fabrics-record.h"
#include "util/string-util.h"

static const char *const verbs[_FABRICS_VERB_MAX] = {
        [FABRICS_VERB_CAPTURE] = "capture",
        [FABRICS_VERB_CONNECT] = "connect",
};

static const char *const outcomes[_FABRICS_OUTCOME_MAX] = {
        [FABRICS_OUTCOME_CAPTURED] = "captured",
        [FABRICS_OUTCOME_BACK] = "back",
        [FABRICS_OUTCOME_ALREADY_LIVE] = "already-live",
        [FABRICS_OUTCOME_FAILED] = "failed",
        [FABRICS_OUTCOME_SKIPPED_NO_TRANSPORT] = "skipped-no-transport",
        [FABRICS_OUTCOME_LOST] = "lost",
};

const char *fabrics_verb_to_string(FabricsVerb v) {
        return v >= 0 && v < _FABRICS_VERB_MAX ? verbs[v] : NULL;
}

FabricsVerb fabrics_verb_from_string(const char *s) {
        for (int v = 0; s && v < _FABRICS_VERB_MAX; v++)
                if (streq(verbs[v], s))
                        return (FabricsVerb) v;
        return _FABRICS_VERB_INVALID;
}

const char *fabrics_outcome_to_string(FabricsOutcome o) {
        return o >= 0 && o < _FABRICS_OUTCOME_MAX ? outcomes[o] : NULL;
}

FabricsPassResult *fabrics_pass_result_new(FabricsVerb verb) {
        FabricsPassResult *r = calloc(1, sizeof(FabricsPassResult));

        if (!r)
                return NULL;
        r->verb = verb;
        r->connections = calloc(1, sizeof(FabricsTopology));
        if (!r->connections) {
                free(r);
                return NULL;
        }
        return r;
}

FabricsPassResult *fabrics_pass_result_free(FabricsPassResult *r) {
        if (!r)
                return NULL;
        for (size_t i = 0; r->connections && i < r->connections->n_controllers; i++) {
                free(r->entries[i].message);
                free(r->entries[i].controller);
        }
        free(r->entries);
        fabrics_topology_free(r->connections);
        free(r->error);
        free(r);
        return NULL;
}

FabricsPassEntry *fabrics_pass_result_add(FabricsPassResult *r, const FabricsController *c, FabricsOutcome outcome) {
        size_t n = r->connections->n_controllers;
        FabricsPassEntry *grown = reallocarray(r->entries, n + 1, sizeof(FabricsPassEntry));

        if (!grown)
                return NULL;
        r->entries = grown;
        /* Set first: a half copy stays counted, and its entry must be there to free. */
        grown[n] = (FabricsPassEntry) { .outcome = outcome };
        return fabrics_topology_add_copy(r->connections, c) < 0 ? NULL : &grown[n];
}

int fabrics_pass_result_fail(FabricsPassResult *r, const char *fmt, ...) {
        va_list ap;

        free(r->error);
        va_start(ap, fmt);
        r->error = strdup_vprintf(fmt, ap);
        va_end(ap);
        r->exit_code = FABRICS_EXIT_ERROR;
        return r->error ? 0 : -ENOMEM;
}

int fabrics_pass_result_settle(FabricsPassResult *r) {
        bool lost = false, pending = false;

        for (size_t i = 0; i < r->connections->n_controllers; i++) {
                lost = lost || r->entries[i].outcome == FABRICS_OUTCOME_LOST;
                pending = pending || r->entries[i].outcome == FABRICS_OUTCOME_FAILED ||
                          r->entries[i].outcome == FABRICS_OUTCOME_SKIPPED_NO_TRANSPORT;
        }
        r->exit_code = r->error ? FABRICS_EXIT_ERROR : lost ? FABRICS_EXIT_LOST : pending ? FABRICS_EXIT_PENDING : FABRICS_EXIT_OK;
        return r->exit_code;
}

static int fail_errno(FabricsPassResult *r, const char *path, int error) {
        _cleanup_free_ char *full = NULL;

        if (host_path(path, &full) < 0)
                return -ENOMEM;
        if (error == -EWOULDBLOCK)
                return fabrics_pass_result_fail(r, "%s: held by another fabrics run for %u s, giving up", full,
                                                FABRICS_LOCK_WAIT_MSEC / 1000) < 0 ? -ENOMEM : 1;
        return fabrics_pass_result_fail(r, "%s: %s", full, strerror(-error)) < 0 ? -ENOMEM : 1;
}

static int pass_lock_and_load(FabricsPassResult *r, int *ret_lock_fd, FabricsTopology **ret_record) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *record = NULL;
        _cleanup_free_ char *error = NULL, *aside = NULL;
        _cleanup_close_ int lock = -EBADF;
        int k;

        k = fabrics_lock_take(FABRICS_LOCK_WAIT_MSEC, &lock);
        if (k == -ENOMEM)
                return k;
        if (k < 0)
                return fail_errno(r, FABRICS_LOCK_PATH, k);
        k = fabrics_record_load(&record, &error);
        if (k == -ENOENT)
                k = (record = calloc(1, sizeof(FabricsTopology))) ? 0 : -ENOMEM;
        if (k == -ENOMEM)
                return k;
        if (k == -EBADMSG) {
                /* Kept for a person to look at; the next run starts afresh. */
                k = fabrics_record_set_aside(&aside);
                if (fabrics_pass_result_fail(r, "%s; %s%s", error ?: "record.json: not readable",
                                             k < 0 ? "could not keep it aside: " : "kept as ",
                                             k < 0 ? strerror(-k) : aside) < 0)
                        return -ENOMEM;
                return 1;
        }
        if (k < 0)
                return fabrics_pass_result_fail(r, "%s", error ?: strerror(-k)) < 0 ? -ENOMEM : 1;
        *ret_lock_fd = TAKE_FD(lock);
        *ret_record = TAKE_PTR(record);
        return 0;
}

int fabrics_pass_begin(FabricsVerb verb, FabricsPass *p) {
        p->result = fabrics_pass_result_new(verb);
        if (!p->result)
                return -ENOMEM;
        return pass_lock_and_load(p->result, &p->lock_fd, &p->record);
}

void fabrics_pass_done(FabricsPass *p) {
        p->result = fabrics_pass_result_free(p->result);
        p->record = fabrics_topology_free(p->record);
        closep(&p->lock_fd);
        p->lock_fd = -EBADF;
}
