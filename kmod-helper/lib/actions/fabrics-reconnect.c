/* SPDX-License-Identifier: Apache-2.0 */
/* fabrics_reconnect(): connect every recorded connection that is not back,
 * then wait, within one deadline, for each to be live with its namespaces
 * (see fabrics-reconnect.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "actions/fabrics-connect.h"
#include "actions/fabrics-reconnect.h"
#include "host/kernel-target.h"
#include "nvme/fabrics-record.h"
#include "util/string-util.h"
#include "util/strv.h"

/* sysfs attributes have no change notification for a controller's state
 * (the kernel sends no uevent when it turns live), so the wait polls; a
 * tenth of a second keeps it cheap and the answer prompt. */
#define POLL_STEP_NSEC 100000000L

static uint64_t now_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

const char *fabrics_reconnect_outcome_to_string(FabricsReconnectOutcome o) {
        static const char *const names[_FABRICS_RECONNECT_OUTCOME_MAX] = {
                [FABRICS_RECONNECTED] = "reconnected", [FABRICS_ALREADY_LIVE] = "already-live",
                [FABRICS_FAILED] = "failed", [FABRICS_NAMESPACES_MISSING] = "namespaces-missing",
        };

        return o >= 0 && o < _FABRICS_RECONNECT_OUTCOME_MAX ? names[o] : NULL;
}

FabricsReconnectResult *fabrics_reconnect_result_free(FabricsReconnectResult *r) {
        if (!r)
                return NULL;
        for (size_t i = 0; i < r->n_entries; i++) {
                FabricsReconnectEntry *e = &r->entries[i];

                free(e->description);
                free(e->address);
                free(e->old_name);
                free(e->new_name);
                free(e->error_message);
                free(e->kernel_message);
                strv_free(e->namespaces);
                strv_free(e->missing);
        }
        free(r->entries);
        free(r);
        return NULL;
}

bool fabrics_reconnect_all_back(const FabricsReconnectResult *r) {
        for (size_t i = 0; r && i < r->n_entries; i++)
                if (r->entries[i].outcome != FABRICS_RECONNECTED && r->entries[i].outcome != FABRICS_ALREADY_LIVE)
                        return false;
        return true;
}

/* What a refused connect means, for the operator (the kernel says more in
 * its log: "nvme nvme3: failed to connect socket: -111"). */
static const char *error_hint(int error) {
        switch (error) {
        case ECONNREFUSED:
                return "nothing accepts connections at that address";
        case EINVAL:
                return "the kernel refused the options or has no handler for the transport (is its module loaded?); see dmesg";
        case EKEYREJECTED:
        case EKEYEXPIRED:
        case EACCES:
                return "authentication failed";
        case ENOENT:
                return "no /dev/nvme-fabrics: nvme_fabrics is not loaded";
        case ETIMEDOUT:
        case EHOSTUNREACH:
        case ENETUNREACH:
                return "the target cannot be reached";
        default:
                return "see dmesg for the kernel's reason";
        }
}

static int set_error(FabricsReconnectEntry *e, int error, const char *what) {
        e->outcome = FABRICS_FAILED;
        e->error = error;
        free(e->error_message);
        e->error_message = strdup_printf("%s: %s (%s)", what, strerror(error), error_hint(error));
        return e->error_message ? 0 : -ENOMEM;
}

static const FabricsController *find_connection(const FabricsTopology *t, const FabricsController *c) {
        for (size_t i = 0; t && i < t->n_controllers; i++)
                if (fabrics_controller_same_connection(&t->controllers[i], c))
                        return &t->controllers[i];
        return NULL;
}

static int connect_one(const FabricsController *c, FabricsReconnectEntry *e) {
        _cleanup_secret_ char *host = NULL, *ctrl = NULL, *options = NULL;
        unsigned instance;
        int r;

        if (c->dhchap_secret || c->dhchap_ctrl_secret) {
                r = fabrics_secrets_load(c, &host, &ctrl);
                if (r < 0 && r != -ENOENT) /* none kept: the kernel says whether it needs them */
                        return set_error(e, -r, "reading its DH-HMAC-CHAP secrets");
        }
        r = fabrics_connect_options(c, host, ctrl, &options);
        if (r < 0)
                return r == -ENOMEM ? r : set_error(e, -r, "building its options");
        r = fabrics_connect(options, &instance, &e->kernel_message);
        if (r == -EALREADY) { /* someone connected it meanwhile: wait for that one */
                e->outcome = FABRICS_ALREADY_LIVE;
                return 0;
        }
        if (r < 0)
                return set_error(e, -r, "connect refused");
        e->new_name = strdup_printf("nvme%u", instance);
        return e->new_name ? 0 : -ENOMEM;
}

static int entry_init(const FabricsController *c, const FabricsTopology *now, FabricsReconnectEntry *e) {
        const FabricsController *live = find_connection(now, c);

        e->description = fabrics_controller_describe(c);
        e->address = fabrics_controller_address(c);
        e->old_name = strdup(c->name ?: "?");
        if (!e->description || !e->address || !e->old_name)
                return -ENOMEM;
        e->outcome = FABRICS_RECONNECTED;
        if (live) {
                e->outcome = FABRICS_ALREADY_LIVE;
                e->new_name = strdup(live->name);
                return e->new_name ? 0 : -ENOMEM;
        }
        return connect_one(c, e);
}

static bool ids_agree(const char *a, const char *b) {
        return !a || !b || streq(a, b);
}

static bool same_namespace(const FabricsNamespace *a, const FabricsNamespace *b) {
        return a->nsid == b->nsid && ids_agree(a->nguid, b->nguid) && ids_agree(a->uuid, b->uuid) &&
               ids_agree(a->eui, b->eui);
}

static const FabricsNamespace *find_namespace(const FabricsController *c, const FabricsNamespace *want) {
        for (size_t i = 0; c && i < c->n_namespaces; i++)
                if (same_namespace(&c->namespaces[i], want))
                        return &c->namespaces[i];
        return NULL;
}

/* The controller the entry waits for: by its new name when the kernel gave
 * one (and still the same connection), else by the connection. */
static const FabricsController *current(const FabricsTopology *now, const FabricsController *c,
                                        const FabricsReconnectEntry *e) {
        const FabricsController *found = find_connection(now, c);

        if (found && e->new_name && !streq(found->name, e->new_name))
                for (size_t i = 0; i < now->n_controllers; i++)
                        if (streq(now->controllers[i].name, e->new_name) &&
                            fabrics_controller_same_connection(&now->controllers[i], c))
                                return &now->controllers[i];
        return found;
}

static bool entry_done(const FabricsController *want, const FabricsController *have) {
        if (!have || !have->state || !streq(have->state, "live"))
                return false;
        for (size_t i = 0; i < want->n_namespaces; i++)
                if (!find_namespace(have, &want->namespaces[i]))
                        return false;
        return true;
}

static bool all_done(const FabricsTopology *record, const FabricsTopology *now, const FabricsReconnectResult *res) {
        for (size_t i = 0; i < res->n_entries; i++)
                if (res->entries[i].outcome != FABRICS_FAILED &&
                    !entry_done(&record->controllers[i], current(now, &record->controllers[i], &res->entries[i])))
                        return false;
        return true;
}

/* Polls until every entry not failed is done or the deadline passes;
 * *ret is the last topology read. */
static int wait_for_all(const FabricsTopology *record, const FabricsReconnectResult *res, uint64_t deadline,
                        FabricsTopology **ret) {
        for (;;) {
                _cleanup_(fabrics_topology_freep) FabricsTopology *now = NULL;
                int r = fabrics_topology_read(&now);

                if (r < 0)
                        return r;
                if (all_done(record, now, res) || now_usec() >= deadline) {
                        *ret = TAKE_PTR(now);
                        return 0;
                }
                nanosleep(&(struct timespec) { .tv_nsec = POLL_STEP_NSEC }, NULL);
        }
}

static int describe_namespaces(const FabricsController *want, const FabricsController *have,
                               FabricsReconnectEntry *e) {
        for (size_t i = 0; i < want->n_namespaces; i++) {
                const FabricsNamespace *w = &want->namespaces[i], *h = find_namespace(have, w);
                const char *id = w->nguid ?: w->uuid ?: w->eui;
                int r;

                if (h)
                        r = strv_extendf(&e->namespaces, "%s (nsid %u)", h->name ?: "?", h->nsid);
                else
                        r = strv_extendf(&e->missing, "nsid %u%s%s%s (%s before)", w->nsid, id ? " (" : "",
                                         id ?: "", id ? ")" : "", w->name ?: "?");
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The outcome of one entry from the last look at sysfs. */
static int settle(const FabricsController *want, const FabricsTopology *now, FabricsReconnectEntry *e,
                  unsigned timeout_sec) {
        const FabricsController *have;
        int r;

        if (e->outcome == FABRICS_FAILED)
                return 0;
        have = current(now, want, e);
        if (have && (!e->new_name || !streq(e->new_name, have->name))) {
                free(e->new_name);
                e->new_name = strdup(have->name);
                if (!e->new_name)
                        return -ENOMEM;
        }
        if ((r = describe_namespaces(want, have, e)) < 0)
                return r;
        if (!have || !have->state || !streq(have->state, "live")) {
                _cleanup_free_ char *what = strdup_printf("not live after %us (state: %s)", timeout_sec,
                                                          have && have->state ? have->state : "gone");

                if (!what)
                        return -ENOMEM;
                return set_error(e, ETIMEDOUT, what);
        }
        if (e->missing) {
                e->outcome = FABRICS_NAMESPACES_MISSING;
                e->error = ENOENT;
                e->error_message = strdup_printf("live, but %zu namespace(s) not back after %us",
                                                 strv_length(e->missing), timeout_sec);
                return e->error_message ? 0 : -ENOMEM;
        }
        return 0;
}

int fabrics_reconnect(const FabricsTopology *record, const FabricsReconnectOptions *opts,
                      FabricsReconnectResult **ret) {
        _cleanup_(fabrics_reconnect_result_freep) FabricsReconnectResult *res = calloc(1, sizeof(*res));
        _cleanup_(fabrics_topology_freep) FabricsTopology *now = NULL;
        unsigned timeout = opts && opts->timeout_sec ? opts->timeout_sec : FABRICS_RECONNECT_TIMEOUT_SEC_DEFAULT;
        uint64_t deadline = now_usec() + (uint64_t) timeout * 1000000u;
        size_t n = record ? record->n_controllers : 0;
        int r;

        if (!res)
                return -ENOMEM;
        /* A fake root's record must never reach the real kernel. */
        r = kernel_target_check();
        if (r < 0)
                return r;
        if (n > 0 && !(res->entries = calloc(n, sizeof(FabricsReconnectEntry))))
                return -ENOMEM;
        res->n_entries = n; /* zeroed entries free as empty ones */
        if (n > 0 && (r = fabrics_topology_read(&now)) < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if ((r = entry_init(&record->controllers[i], now, &res->entries[i])) < 0)
                        return r;
        if (n > 0) {
                now = fabrics_topology_free(now);
                if ((r = wait_for_all(record, res, deadline, &now)) < 0)
                        return r;
        }
        for (size_t i = 0; i < n; i++)
                if ((r = settle(&record->controllers[i], now, &res->entries[i], timeout)) < 0)
                        return r;
        *ret = TAKE_PTR(res);
        return 0;
}
