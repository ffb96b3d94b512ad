/* SPDX-License-Identifier: Apache-2.0 */
/* The connect pass (see fabrics-reconnect.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "actions/fabrics-connect.h"
#include "actions/fabrics-device.h"
#include "actions/fabrics-options.h"
#include "actions/fabrics-reconnect.h"
#include "host/host-root.h"
#include "host/kernel-target.h"
#include "nvme/fabrics-record.h"
#include "nvme/fabrics-secrets.h"
#include "nvme/fabrics-topology-sysfs.h"
#include "nvme/nvme-controllers.h"
#include "util/fileio.h"
#include "util/string-util.h"
#include "util/strv.h"

static int transport_loaded(const FabricsController *c) {
        _cleanup_free_ char *path = NULL;
        const char *module = nvme_transport_module(c->transport);
        int r;

        if (!module)
                return 0;
        r = host_pathf(&path, "/sys/module/%s", module);
        return r < 0 ? r : path_exists(path);
}

static int set_message(FabricsPassEntry *e, const char *fmt, ...) _printf_(2, 3);
static int set_message(FabricsPassEntry *e, const char *fmt, ...) {
        va_list ap;

        free(e->message);
        va_start(ap, fmt);
        e->message = strdup_vprintf(fmt, ap);
        va_end(ap);
        return e->message ? 0 : -ENOMEM;
}

/* The options of the loaded nvme_fabrics, read once per pass (it cannot
 * change under us: its module is held by the transport in use). */
static int supported_options(char ***cache, char **ret_error) {
        if (*cache)
                return 0;
        return fabrics_supported_options_read(cache, ret_error);
}

/* One write; 0 and *ret_instance, or the -errno of the try with e's message set. */
static int try_connect(const FabricsController *c, FabricsPassEntry *e, char ***supported, unsigned *ret_instance) {
        _cleanup_secret_ char *host = NULL, *ctrl = NULL, *options = NULL;
        _cleanup_free_ char *message = NULL, *left = NULL;
        _cleanup_strv_free_ char **left_out = NULL;
        const char *field = NULL;
        int r;

        r = supported_options(supported, &message);
        if (r < 0)
                return r == -ENOMEM || set_message(e, "%s", message ?: strerror(-r)) < 0 ? -ENOMEM : r;
        if (c->dhchap_secret || c->dhchap_ctrl_secret) {
                r = fabrics_secrets_load(c, &host, &ctrl);
                if (r == -ENOMEM)
                        return r;
                if (r < 0 && r != -ENOENT) /* none kept: the kernel says whether it needs them */
                        return set_message(e, "reading its secrets: %s", strerror(-r)) < 0 ? -ENOMEM : r;
        }
        /* The kernel logs a secret it refuses with its value: one that is
         * not DHHC-1 is never sent. */
        if ((host && !fabrics_secret_format_ok(host)) || (ctrl && !fabrics_secret_format_ok(ctrl)))
                return set_message(e, "%s is not of the form DHHC-1:<2 hex>:<base64>: not sent",
                                   host && !fabrics_secret_format_ok(host) ? "dhchap_secret" : "dhchap_ctrl_secret") < 0
                               ? -ENOMEM
                               : -EINVAL;
        if (c->tls_keyring && !streq(c->tls_keyring, ".nvme") && !c->tls_configured_key)
                return set_message(e, "its TLS keyring \"%s\" is known by name only, the kernel takes a serial: "
                                      "not connected with another keyring's key", c->tls_keyring) < 0 ? -ENOMEM : -EINVAL;
        r = fabrics_connect_options(c, host, ctrl, &options, &field);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return set_message(e, "option %s holds ',', '=', a space or a control character: refused",
                                   field ?: "?") < 0 ? -ENOMEM : r;
        /* An option the loaded module does not know would be logged with its value. */
        if ((r = fabrics_options_keep_supported(&options, *supported, &left_out)) < 0)
                return r;
        if (left_out[0] && !(left = strv_join(left_out, ", ")))
                return -ENOMEM;
        r = fabrics_connect(options, ret_instance, &message);
        if (r < 0 && set_message(e, "%s%s%s%s", message ?: strerror(-r), left ? " (left out, unknown to the loaded nvme_fabrics: " : "",
                                 left ?: "", left ? ")" : "") < 0)
                return -ENOMEM;
        if (r >= 0 && left && set_message(e, "left out, unknown to the loaded nvme_fabrics: %s", left) < 0)
                return -ENOMEM;
        return r;
}

/* A failed try: the entry's kind, counters and plan. */
static void failed(FabricsController *c, FabricsPassEntry *e, int error, uint64_t now) {
        FabricsRetryPlan plan = fabrics_retry_plan(now, c->entry.lost_at, c->reconnect_delay, c->ctrl_loss_tmo);

        e->error = error;
        e->error_kind = fabrics_error_kind_from_errno(error);
        c->entry.attempts++;
        c->entry.last_error_kind = e->error_kind;
        c->entry.last_errno = error;
        e->give_up_at_usec = plan.give_up_at_usec;
        c->entry.next_try_at = plan.give_up ? 0 : plan.next_try_usec;
        if (plan.give_up) {
                c->entry.state = FABRICS_ENTRY_LOST;
                e->outcome = FABRICS_OUTCOME_LOST;
        } else
                e->next_try_usec = plan.next_try_usec;
}

/* One entry: true in *ret_drop when it leaves the record. */
static int handle(FabricsPassResult *r, FabricsController *c, const FabricsTopology *live, uint64_t now, bool only_due,
                  char ***supported, bool *ret_drop) {
        const FabricsController *l = fabrics_topology_find(live, c);
        FabricsPassEntry *e;
        unsigned instance;
        int k;

        *ret_drop = false;
        if (l) {
                e = fabrics_pass_result_add(r, c, FABRICS_OUTCOME_ALREADY_LIVE);
                if (!e || !(e->controller = strdup(l->name)))
                        return -ENOMEM;
                *ret_drop = true;
                return 0;
        }
        if (c->entry.lost_at == 0)
                c->entry.lost_at = now;
        if (c->entry.state == FABRICS_ENTRY_LOST) {
                e = fabrics_pass_result_add(r, c, FABRICS_OUTCOME_LOST);
                if (!e)
                        return -ENOMEM;
                e->error_kind = c->entry.last_error_kind, e->error = c->entry.last_errno;
                e->give_up_at_usec = fabrics_retry_plan(now, c->entry.lost_at, c->reconnect_delay, c->ctrl_loss_tmo).give_up_at_usec;
                return 0;
        }
        k = transport_loaded(c);
        if (k < 0)
                return k;
        if (k == 0)
                return fabrics_pass_result_add(r, c, FABRICS_OUTCOME_SKIPPED_NO_TRANSPORT) ? 0 : -ENOMEM;
        if (only_due && c->entry.next_try_at > now) {
                /* A request (one per load, restore or daemon start) never
                 * brings a try forward: the target hears from this node no
                 * more often than reconnect_delay says. */
                e = fabrics_pass_result_add(r, c, FABRICS_OUTCOME_FAILED);
                if (!e)
                        return -ENOMEM;
                e->error = c->entry.last_errno;
                e->error_kind = c->entry.last_error_kind;
                e->next_try_usec = c->entry.next_try_at;
                e->give_up_at_usec = fabrics_retry_plan(now, c->entry.lost_at, c->reconnect_delay, c->ctrl_loss_tmo).give_up_at_usec;
                return set_message(e, "not tried: its next try is not due yet");
        }
        e = fabrics_pass_result_add(r, c, FABRICS_OUTCOME_BACK);
        if (!e)
                return -ENOMEM;
        k = try_connect(c, e, supported, &instance);
        if (k == -ENOMEM)
                return k;
        if (k < 0) {
                e->outcome = FABRICS_OUTCOME_FAILED;
                failed(c, e, -k, now);
                /* the result's copy was taken before the try: bring it up to date */
                r->connections->controllers[r->connections->n_controllers - 1].entry = c->entry;
                return 0;
        }
        *ret_drop = true;
        return (e->controller = strdup_printf("nvme%u", instance)) ? 0 : -ENOMEM;
}

static int run(FabricsPassResult *r, FabricsTopology *record, uint64_t now, bool only_due) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *live = NULL;
        _cleanup_strv_free_ char **supported = NULL;
        _cleanup_free_ char *path = NULL;
        int k;

        if (record->n_controllers == 0) { /* nothing to do; a leftover secrets file goes too */
                (void) fabrics_secrets_remove();
                return 0;
        }
        k = kernel_target_check();
        if (k < 0)
                return fabrics_pass_result_fail(r, "a fake root without the test fake kernel: no connect is sent (%s)",
                                                strerror(-k));
        k = fabrics_topology_read(&live);
        if (k == -ENOMEM)
                return k;
        if (k < 0)
                return host_path("/sys/class/nvme", &path) < 0 ? -ENOMEM
                       : fabrics_pass_result_fail(r, "%s: %s", path, strerror(-k));
        for (size_t i = 0; i < record->n_controllers;) {
                bool drop;

                if ((k = handle(r, &record->controllers[i], live, now, only_due, &supported, &drop)) < 0)
                        return k;
                if (drop)
                        fabrics_topology_remove(record, i);
                else
                        i++;
        }
        /* Secrets first, keeping only the entries that stay; then the record. */
        if ((k = fabrics_secrets_save(record, NULL)) < 0)
                return k == -ENOMEM ? k : fabrics_pass_result_fail(r, "%s: %s", FABRICS_SECRETS_PATH, strerror(-k));
        if ((k = fabrics_record_save(record)) < 0)
                return k == -ENOMEM ? k : fabrics_pass_result_fail(r, "%s: %s", FABRICS_RECORD_PATH, strerror(-k));
        return 0;
}

static int connect_pass(uint64_t now_usec, bool only_due, FabricsPassResult **ret) {
        _cleanup_(fabrics_pass_done) FabricsPass p = FABRICS_PASS_NULL;
        int k;

        k = fabrics_pass_begin(FABRICS_VERB_CONNECT, &p);
        if (k == 0)
                k = run(p.result, p.record, now_usec, only_due);
        if (k < 0)
                return k;
        fabrics_pass_result_settle(p.result);
        *ret = TAKE_PTR(p.result);
        return 0;
}

int fabrics_connect_pass(uint64_t now_usec, FabricsPassResult **ret) {
        return connect_pass(now_usec, false, ret);
}

int fabrics_connect_pass_due(uint64_t now_usec, FabricsPassResult **ret) {
        return connect_pass(now_usec, true, ret);
}
