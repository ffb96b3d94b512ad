/* SPDX-License-Identifier: Apache-2.0 */

/* GuardOps' fabrics operations with the guard library (issue 27): the
 * topology read from sysfs, the record kept across the unload, the
 * reconnect. The library's structures are copied into the daemon's
 * GuardFabrics, which never holds a secret (the library keeps the
 * DH-HMAC-CHAP values in its 0600 file and passes them to the kernel
 * only). */

#include <stdlib.h>
#include <string.h>

#include "actions/fabrics-reconnect.h"
#include "guard/guard-ops-real-fabrics.h"
#include "host/host-root.h"
#include "nvme/fabrics-record.h"
#include "nvme/fabrics-topology.h"
#include "nvme/nvme-controllers.h"
#include "nvme/nvme-unbound.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

static int dup_or_null(const char *s, char **ret) {
        *ret = NULL;
        if (!s)
                return 0;
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

static int connection_from(GuardFabrics *f, const FabricsController *c, GuardFabricsOutcome outcome) {
        GuardFabricsConnection *x = guard_fabrics_add(f);

        if (!x)
                return -ENOMEM;
        x->outcome = outcome;
        x->description = fabrics_controller_describe(c);
        x->address = fabrics_controller_address(c);
        if (!x->description || !x->address || dup_or_null(c->name, &x->controller) < 0 ||
            dup_or_null(c->transport, &x->transport) < 0 || dup_or_null(c->subsysnqn, &x->subsysnqn) < 0)
                return -ENOMEM;
        return 0;
}

static int fabrics_from(const FabricsTopology *t, GuardFabricsOutcome outcome, GuardFabrics **ret) {
        _cleanup_(guard_fabrics_freep) GuardFabrics *f = calloc(1, sizeof(*f));
        int r;

        if (!f)
                return -ENOMEM;
        for (size_t i = 0; t && i < t->n_controllers; i++) {
                r = connection_from(f, &t->controllers[i], outcome);
                if (r < 0)
                        return r;
        }
        if (t && t->n_controllers > 0) {
                r = fabrics_topology_transport_modules(t, &f->transports);
                if (r < 0 && r != -EINVAL) /* a transport we know no module for: none to name */
                        return r;
        }
        *ret = TAKE_PTR(f);
        return 0;
}

int guard_fabrics_read_real(void *userdata, GuardFabrics **ret) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = NULL;
        int r;

        r = fabrics_topology_read(&t);
        if (r < 0)
                return r;
        return fabrics_from(t, GUARD_FABRICS_LIVE, ret);
}

/* The record on disk, NULL when there is none or it cannot be read (a bad
 * one is replaced by the next save: the live topology is the better truth). */
static FabricsTopology *record_or_null(void) {
        FabricsTopology *t = NULL;
        _cleanup_free_ char *error = NULL;

        if (fabrics_record_load(&t, &error) < 0)
                return NULL;
        return t;
}

static bool recorded(const FabricsTopology *rec, const FabricsController *c) {
        for (size_t i = 0; rec && i < rec->n_controllers; i++)
                if (fabrics_controller_same_connection(&rec->controllers[i], c))
                        return true;
        return false;
}

int guard_fabrics_save_real(void *userdata, GuardFabrics **ret) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *live = NULL, *rec = NULL;
        bool added = false;
        int r;

        r = fabrics_topology_read(&live);
        if (r < 0)
                return r;
        /* A record left by an unload cut short names connections already gone
         * from sysfs: keep them, add the live ones it lacks. */
        rec = record_or_null();
        if (!rec) {
                rec = TAKE_PTR(live);
                added = rec->n_controllers > 0;
        } else
                for (size_t i = 0; i < live->n_controllers; i++) {
                        FabricsController *slot;

                        if (recorded(rec, &live->controllers[i]))
                                continue;
                        slot = fabrics_topology_add_controller(rec);
                        if (!slot)
                                return -ENOMEM;
                        /* moved: the record owns its strings from here */
                        *slot = live->controllers[i];
                        live->controllers[i] = (FabricsController) {};
                        added = true;
                }
        if (added) {
                r = fabrics_record_save(rec);
                if (r < 0)
                        return r;
        }
        return fabrics_from(rec, GUARD_FABRICS_PENDING, ret);
}

int guard_fabrics_pending_real(void *userdata, GuardFabrics **ret) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *rec = NULL;
        _cleanup_free_ char *error = NULL;
        int r;

        r = fabrics_record_load(&rec, &error);
        if (r == -ENOENT)
                return fabrics_from(NULL, GUARD_FABRICS_PENDING, ret);
        if (r < 0)
                return r;
        return fabrics_from(rec, GUARD_FABRICS_PENDING, ret);
}

static GuardFabricsOutcome outcome_from(FabricsReconnectOutcome o) {
        switch (o) {
        case FABRICS_RECONNECTED: return GUARD_FABRICS_RECONNECTED;
        case FABRICS_ALREADY_LIVE: return GUARD_FABRICS_ALREADY_LIVE;
        case FABRICS_NAMESPACES_MISSING: return GUARD_FABRICS_NAMESPACES_MISSING;
        default: return GUARD_FABRICS_FAILED;
        }
}

static bool transport_loaded(const char *transport) {
        const char *module = nvme_transport_module(transport);
        _cleanup_free_ char *p = NULL;

        return module && host_pathf(&p, "/sys/module/%s", module) >= 0 && path_exists(p) > 0;
}

/* The record's connections whose transport module is loaded now, borrowed
 * (the caller forgets them before freeing: forget_borrowed()). Without it
 * the kernel's nvmf_create_ctrl() would request_module() the host's own
 * transport behind the swap's back (fabrics.c), so those are not tried. */
static int split_loaded(const FabricsTopology *rec, FabricsTopology **ret_ok) {
        _cleanup_free_ FabricsTopology *ok = calloc(1, sizeof(*ok));

        if (!ok)
                return -ENOMEM;
        for (size_t i = 0; i < rec->n_controllers; i++) {
                FabricsController *slot;

                if (!transport_loaded(rec->controllers[i].transport))
                        continue;
                slot = fabrics_topology_add_controller(ok);
                if (!slot) {
                        free(ok->controllers);
                        return -ENOMEM;
                }
                *slot = rec->controllers[i];
        }
        *ret_ok = TAKE_PTR(ok);
        return 0;
}

static void forget_borrowed(FabricsTopology *ok) {
        if (!ok)
                return;
        free(ok->controllers);
        free(ok);
}

static int entry_add(GuardFabrics *f, const FabricsController *c, const FabricsReconnectEntry *e) {
        GuardFabricsConnection *x;
        int r;

        r = connection_from(f, c, GUARD_FABRICS_FAILED);
        if (r < 0)
                return r;
        x = &f->items[f->n - 1];
        if (!e) {
                x->error = ENOPKG;
                return asprintf(&x->error_message, "its transport module %s is not loaded",
                                nvme_transport_module(c->transport) ?: c->transport) < 0 ? -ENOMEM : 0;
        }
        x->outcome = outcome_from(e->outcome);
        x->error = e->error;
        if (dup_or_null(e->new_name, &x->new_controller) < 0)
                return -ENOMEM;
        /* The kernel's own words when the library could read them (/dev/kmsg;
         * the shipped unit's ProtectKernelLogs= hides it, then only errno's). */
        if (e->error_message && e->kernel_message) {
                if (asprintf(&x->error_message, "%s (kernel: %s)", e->error_message, e->kernel_message) < 0)
                        return -ENOMEM;
        } else if (dup_or_null(e->error_message ?: e->kernel_message, &x->error_message) < 0)
                return -ENOMEM;
        if (!x->error_message && e->missing && e->missing[0]) {
                _cleanup_free_ char *j = strv_join(e->missing, ", ");

                if (!j || asprintf(&x->error_message, "namespaces not back: %s", j) < 0)
                        return -ENOMEM;
        }
        return 0;
}

static const FabricsReconnectEntry *entry_for(const FabricsReconnectResult *res, const FabricsController *c) {
        for (size_t i = 0; res && i < res->n_entries; i++)
                if (res->entries[i].old_name && c->name && streq(res->entries[i].old_name, c->name))
                        return &res->entries[i];
        return NULL;
}

int guard_fabrics_reconnect_real(void *userdata, unsigned timeout_sec, GuardFabrics **ret) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *rec = NULL;
        _cleanup_(fabrics_reconnect_result_freep) FabricsReconnectResult *res = NULL;
        _cleanup_(guard_fabrics_freep) GuardFabrics *f = NULL;
        _cleanup_free_ char *error = NULL;
        FabricsTopology *ok = NULL;
        bool all_back = true;
        int r;

        r = fabrics_record_load(&rec, &error);
        if (r == -ENOENT)
                return fabrics_from(NULL, GUARD_FABRICS_PENDING, ret);
        if (r < 0)
                return r;
        r = split_loaded(rec, &ok);
        if (r < 0)
                return r;
        r = fabrics_reconnect(ok, &(FabricsReconnectOptions) { .timeout_sec = timeout_sec }, &res);
        forget_borrowed(ok);
        if (r < 0)
                return r;
        r = fabrics_from(NULL, GUARD_FABRICS_PENDING, &f);
        if (r < 0)
                return r;
        /* In record order, the ones not tried too (their transport not loaded). */
        for (size_t i = 0; i < rec->n_controllers; i++) {
                r = entry_add(f, &rec->controllers[i], entry_for(res, &rec->controllers[i]));
                if (r < 0)
                        return r;
                all_back = all_back && (f->items[f->n - 1].outcome == GUARD_FABRICS_RECONNECTED ||
                                        f->items[f->n - 1].outcome == GUARD_FABRICS_ALREADY_LIVE);
        }
        r = fabrics_topology_transport_modules(rec, &f->transports);
        if (r < 0 && r != -EINVAL)
                return r;
        if (all_back) {
                r = fabrics_record_remove();
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(f);
        return 0;
}

/* Every NVMe PCI function, bound or not: a node with none and nvme_fabrics
 * loaded is fabrics-only; -ENOENT when there is no PCI bus to see. */
int guard_nvme_pci_functions_real(void *userdata, unsigned *ret) {
        return nvme_pci_functions(ret, NULL);
}
