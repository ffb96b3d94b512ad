/* SPDX-License-Identifier: Apache-2.0 */

/* GuardOps' fabrics operations with the guard library (issue 27): the
 * topology read from sysfs, the record kept across the unload, the
 * reconnect. The library's structures are copied into the daemon's
 * GuardFabrics, which never holds a secret (the library keeps the
 * DH-HMAC-CHAP values in its 0600 file and passes them to the kernel
 * only). */

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "actions/fabrics-capture.h"
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

/* Interim, until the daemon asks the connect unit instead: the library's
 * passes in-process (the daemon side of the split replaces this file). */
static uint64_t now_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

int guard_fabrics_save_real(void *userdata, GuardFabrics **ret) {
        _cleanup_(fabrics_pass_result_freep) FabricsPassResult *res = NULL;
        _cleanup_(fabrics_topology_freep) FabricsTopology *rec = NULL;
        int r;

        r = fabrics_capture_pass(now_usec(), &res);
        if (r < 0)
                return r;
        if (res->exit_code != FABRICS_EXIT_OK)
                return -EIO;
        r = fabrics_record_load(&rec, NULL);
        if (r < 0 && r != -ENOENT)
                return r;
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

static GuardFabricsOutcome outcome_from(FabricsOutcome o) {
        switch (o) {
        case FABRICS_OUTCOME_BACK: return GUARD_FABRICS_RECONNECTED;
        case FABRICS_OUTCOME_ALREADY_LIVE: return GUARD_FABRICS_ALREADY_LIVE;
        default: return GUARD_FABRICS_FAILED;
        }
}

int guard_fabrics_reconnect_real(void *userdata, unsigned timeout_sec, GuardFabrics **ret) {
        _cleanup_(fabrics_pass_result_freep) FabricsPassResult *res = NULL;
        _cleanup_(guard_fabrics_freep) GuardFabrics *f = NULL;
        int r;

        r = fabrics_connect_pass(now_usec(), &res);
        if (r < 0)
                return r;
        r = fabrics_from(NULL, GUARD_FABRICS_PENDING, &f);
        if (r < 0)
                return r;
        for (size_t i = 0; i < res->connections->n_controllers; i++) {
                const FabricsPassEntry *e = &res->entries[i];
                GuardFabricsConnection *x;

                r = connection_from(f, &res->connections->controllers[i], outcome_from(e->outcome));
                if (r < 0)
                        return r;
                x = &f->items[f->n - 1];
                x->error = e->error;
                if (dup_or_null(e->controller, &x->new_controller) < 0 || dup_or_null(e->message, &x->error_message) < 0)
                        return -ENOMEM;
        }
        r = fabrics_topology_transport_modules(res->connections, &f->transports);
        if (r < 0 && r != -EINVAL)
                return r;
        *ret = TAKE_PTR(f);
        return 0;
}

/* Every NVMe PCI function, bound or not: a node with none and nvme_fabrics
 * loaded is fabrics-only; -ENOENT when there is no PCI bus to see. */
int guard_nvme_pci_functions_real(void *userdata, unsigned *ret) {
        return nvme_pci_functions(ret, NULL);
}
