/* SPDX-License-Identifier: Apache-2.0 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "publish/log.h"
#include "publish/report.h"
#include "swap/swap-fabrics-report.h"
#include "swap/swap-record.h"
#include "util/strv.h"
#include "watch/fabrics-watch.h"

#define FIELD_MAX 12

/* The structured fields of one connection's journal entry. */
typedef struct Fields {
        char *items[FIELD_MAX + 1];
        size_t n;
} Fields;

static void fields_add(Fields *f, const char *key, const char *value) {
        if (value && f->n < FIELD_MAX && asprintf(&f->items[f->n], "SWAPGUARD_FABRICS_%s=%s", key, value) >= 0)
                f->n++;
}

static void fields_add_u64(Fields *f, const char *key, uint64_t v) {
        char text[24];

        if (v == 0)
                return;
        snprintf(text, sizeof(text), "%" PRIu64, v);
        fields_add(f, key, text);
}

static void fields_fill(Fields *f, const NodeFabricsConnection *c) {
        fields_add(f, "CONTROLLER", c->controller);
        fields_add(f, "TRANSPORT", c->transport);
        fields_add(f, "ADDRESS", c->address);
        fields_add(f, "NQN", c->subsysnqn);
        fields_add(f, "OUTCOME", node_fabrics_outcome_to_string(c->outcome));
        fields_add(f, "NEW_CONTROLLER", c->new_controller);
        fields_add(f, "ERROR_KIND", c->error_kind);
        fields_add_u64(f, "ERRNO", (uint64_t) c->error);
        fields_add_u64(f, "NEXT_TRY_USEC", c->next_try_usec);
        fields_add_u64(f, "GIVE_UP_AT_USEC", c->give_up_at_usec);
}

static void fields_clear(Fields *f) {
        for (size_t i = 0; i < f->n; i++)
                free(f->items[i]);
        f->n = 0;
}

static ReportFields report_fields(const SwapMachine *s, const SwapFollow *follow, const NodeFabricsConnection *c,
                                  Fields *x) {
        fields_fill(x, c);
        return (ReportFields) { .state = swap_state_to_string(s->state), .device = c->controller,
                                .container_id = swap_record_container_id(follow, s), .extra = x->items };
}

void swap_fabrics_report_drop(const SwapMachine *s, const SwapFollow *follow, bool observe, const NodeFabrics *f) {
        if (!f)
                return;
        for (size_t i = 0; i < f->n; i++) {
                Fields x = {};
                ReportFields rf = report_fields(s, follow, &f->items[i], &x);

                report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_FABRICS_DROP, &rf,
                             observe ? "Observe: %s: would be disconnected by the unload and connected again after "
                                       "the load."
                                     : "%s: disconnected by the unload, connected again after the load by "
                                       FABRICS_UNIT ".service.",
                             f->items[i].description ?: "?");
                fields_clear(&x);
        }
}

static int dup_or_null(const char *s, char **ret) {
        *ret = s ? strdup(s) : NULL;
        return s && !*ret ? -ENOMEM : 0;
}

static char *address_of(const FabricsResultConnection *c) {
        char *a = NULL;

        if (!c->traddr)
                return NULL;
        if (asprintf(&a, "%s%s%s", c->traddr, c->trsvcid ? ":" : "", c->trsvcid ?: "") < 0)
                return NULL;
        return a;
}

/* c's identity and display fields into x (empty). */
static int connection_set(NodeFabricsConnection *x, const FabricsResultConnection *c) {
        x->address = address_of(c);
        if (dup_or_null(c->transport, &x->transport) < 0 || dup_or_null(c->traddr, &x->traddr) < 0 ||
            dup_or_null(c->trsvcid, &x->trsvcid) < 0 || dup_or_null(c->subsysnqn, &x->subsysnqn) < 0)
                return -ENOMEM;
        if (c->description)
                return dup_or_null(c->description, &x->description);
        return asprintf(&x->description, "%s %s %s", c->transport ?: "?", x->address ?: "?",
                        c->subsysnqn ?: "?") < 0 ? -ENOMEM : 0;
}

void swap_fabrics_record_captured(SwapMachine *s, const FabricsResult *res) {
        NodeFabrics *f = calloc(1, sizeof(*f));

        for (size_t i = 0; f && i < res->n_connections; i++) {
                const FabricsResultConnection *c = &res->connections[i];
                NodeFabricsConnection *x;

                if (c->outcome != FABRICS_RESULT_CAPTURED)
                        continue;
                x = node_fabrics_add(f);
                if (!x || connection_set(x, c) < 0 || dup_or_null(c->old_name ?: c->controller, &x->controller) < 0) {
                        f = node_fabrics_free(f);
                        break;
                }
                x->outcome = NODE_FABRICS_PENDING;
        }
        if (!f)
                log_oom();
        node_fabrics_free(s->record.fabrics);
        s->record.fabrics = f && f->n > 0 ? f : node_fabrics_free(f);
}

static bool same(const char *a, const char *b) {
        return a && b ? streq(a, b) : a == b;
}

static NodeFabricsConnection *find(NodeFabrics *f, const FabricsResultConnection *c) {
        for (size_t i = 0; f && i < f->n; i++)
                if (same(f->items[i].transport, c->transport) && same(f->items[i].traddr, c->traddr) &&
                    same(f->items[i].trsvcid, c->trsvcid) && same(f->items[i].subsysnqn, c->subsysnqn))
                        return &f->items[i];
        return NULL;
}

static NodeFabricsOutcome outcome_of(FabricsResultOutcome o) {
        switch (o) {
        case FABRICS_RESULT_BACK: return NODE_FABRICS_RECONNECTED;
        case FABRICS_RESULT_ALREADY_LIVE: return NODE_FABRICS_ALREADY_LIVE;
        case FABRICS_RESULT_LOST: return NODE_FABRICS_LOST;
        case FABRICS_RESULT_CAPTURED: return NODE_FABRICS_PENDING;
        default: return NODE_FABRICS_PENDING;
        }
}

/* x updated from c (matched or new). */
static int connection_update(NodeFabricsConnection *x, const FabricsResultConnection *c) {
        free(x->new_controller);
        free(x->error_kind);
        free(x->error_message);
        x->new_controller = x->error_kind = x->error_message = NULL;
        x->outcome = outcome_of(c->outcome);
        x->error = c->error;
        x->next_try_usec = c->outcome == FABRICS_RESULT_FAILED ? c->next_try_usec : 0;
        x->give_up_at_usec = c->outcome == FABRICS_RESULT_FAILED ? c->give_up_at_usec : 0;
        if (dup_or_null(c->error_kind, &x->error_kind) < 0)
                return -ENOMEM;
        if (c->outcome == FABRICS_RESULT_BACK || c->outcome == FABRICS_RESULT_ALREADY_LIVE)
                return dup_or_null(c->controller, &x->new_controller);
        if (c->outcome == FABRICS_RESULT_SKIPPED_NO_TRANSPORT)
                return asprintf(&x->error_message, "its transport module is not loaded") < 0 ? -ENOMEM : 0;
        if (c->message)
                return dup_or_null(c->message, &x->error_message);
        if (c->error)
                return asprintf(&x->error_message, "%s%s%s", c->error_kind ?: "", c->error_kind ? ": " : "",
                                strerror(c->error)) < 0 ? -ENOMEM : 0;
        return 0;
}

static void report_one(const SwapMachine *s, const SwapFollow *follow, const NodeFabricsConnection *c,
                       const char *after, bool quiet, uint64_t now) {
        Fields x = {};
        ReportFields rf = report_fields(s, follow, c, &x);
        const char *d = c->description ?: "?";

        switch (c->outcome) {
        case NODE_FABRICS_RECONNECTED:
                if (!quiet)
                        report_event(LOG_INFO, SWAPGUARD_MESSAGE_FABRICS_RECONNECTED, &rf,
                                     "%s: connected again %s as %s.", d, after, c->new_controller ?: "?");
                break;
        case NODE_FABRICS_ALREADY_LIVE:
                if (!quiet)
                        report_event(LOG_INFO, SWAPGUARD_MESSAGE_FABRICS_RECONNECTED, &rf,
                                     "%s: live %s (%s), nothing to connect.", d, after, c->new_controller ?: "?");
                break;
        case NODE_FABRICS_LOST:
                report_event(LOG_ERR, SWAPGUARD_MESSAGE_FABRICS_LOST, &rf,
                             "%s: given up %s: not back within its ctrl_loss_tmo (%s). Its storage stays "
                             "disconnected until it is connected by hand (nvme connect) or the next swap "
                             "captures the node again.", d, after, c->error_message ?: "no reason given");
                break;
        default:
                if (c->next_try_usec > 0)
                        report_event(LOG_WARNING, SWAPGUARD_MESSAGE_FABRICS_PENDING, &rf,
                                     "%s: not back %s: %s; next try in %" PRIu64 " s%s.", d, after,
                                     c->error_message ?: "no reason given",
                                     c->next_try_usec > now ? (c->next_try_usec - now + 999999) / 1000000 : 0,
                                     c->give_up_at_usec ? "" : ", tried until it is back (ctrl_loss_tmo -1)");
                else
                        report_event(LOG_WARNING, SWAPGUARD_MESSAGE_FABRICS_PENDING, &rf,
                                     "%s: not back %s: %s; tried again after the next load or restore.", d, after,
                                     c->error_message ?: "no reason given");
                break;
        }
        fields_clear(&x);
}

void swap_fabrics_record_connected(SwapMachine *s, const SwapFollow *follow, const FabricsResult *res,
                                   const char *after, bool quiet) {
        const uint64_t now = now_realtime_usec();
        size_t back, pending, lost;

        if (!s->record.fabrics && res->n_connections > 0) {
                s->record.fabrics = calloc(1, sizeof(NodeFabrics));
                if (!s->record.fabrics) {
                        log_oom();
                        return;
                }
        }
        for (size_t i = 0; i < res->n_connections; i++) {
                const FabricsResultConnection *c = &res->connections[i];
                NodeFabricsConnection *x = find(s->record.fabrics, c);

                if (c->outcome == FABRICS_RESULT_CAPTURED)
                        continue;
                if (!x) {
                        x = node_fabrics_add(s->record.fabrics);
                        if (!x || connection_set(x, c) < 0) {
                                log_oom();
                                return;
                        }
                }
                if (connection_update(x, c) < 0) {
                        log_oom();
                        return;
                }
                report_one(s, follow, x, after, quiet, now);
        }
        fabrics_result_count(res, &back, &pending, &lost);
        if (quiet && pending == 0 && lost == 0) {
                /* a tidying connect: nothing was dropped, nothing to show */
                s->record.fabrics = node_fabrics_free(s->record.fabrics);
                return;
        }
        if (pending + lost > 0)
                swap_record_message(s, "%zu NVMe over Fabrics connections not back %s (%zu pending, %zu lost)",
                                    pending + lost, after, pending, lost);
}

char *swap_fabrics_status(const SwapMachine *sm) {
        const NodeFabrics *f = sm->record.fabrics;
        const uint64_t now = now_realtime_usec();
        uint64_t next = UINT64_MAX;
        size_t back = 0, pending = 0, lost = 0;
        char in[48] = "";
        char *s = NULL;

        if (!f || f->n == 0)
                return NULL;
        for (size_t i = 0; i < f->n; i++) {
                const NodeFabricsConnection *c = &f->items[i];

                if (c->outcome == NODE_FABRICS_RECONNECTED || c->outcome == NODE_FABRICS_ALREADY_LIVE)
                        back++;
                else if (c->outcome == NODE_FABRICS_LOST)
                        lost++;
                else {
                        pending++;
                        if (c->next_try_usec > 0 && c->next_try_usec < next)
                                next = c->next_try_usec;
                }
        }
        if (pending > 0 && next != UINT64_MAX)
                snprintf(in, sizeof(in), " (next try in %" PRIu64 "s)", next > now ? (next - now + 999999) / 1000000 : 0);
        if (asprintf(&s, "NVMe-oF: %zu back, %zu pending%s, %zu lost", back, pending, in, lost) < 0)
                return NULL;
        return s;
}
