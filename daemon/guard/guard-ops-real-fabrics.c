/* SPDX-License-Identifier: Apache-2.0 */

/* GuardOps' fabrics reads with the guard library: the topology from
 * public sysfs (the secrets' attributes only as present or not), copied
 * into the daemon's GuardFabrics, which never holds a secret. */

#include <stdlib.h>
#include <string.h>

#include "guard/guard-ops-real-fabrics.h"
#include "host/host-root.h"
#include "nvme/fabrics-topology.h"
#include "nvme/nvme-controllers.h"
#include "nvme/nvme-sysfs.h"
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

/* One controller's public attributes (mode 0444): 0 and nothing added when
 * it is not fabrics or went away. Deliberately not the library's
 * fabrics_topology_read(): that one looks at dhchap_secret and
 * dhchap_ctrl_secret to tell whether a connection has them, and this
 * daemon's CAP_DAC_READ_SEARCH would let it read those 0600 files. Whether
 * a secret exists is the capture's business, in its own unit. */
static int read_controller(FabricsTopology *t, const char *class_dir, const char *name) {
        _cleanup_free_ char *dir = NULL, *transport = NULL, *address = NULL;
        const char *module;
        FabricsController *c;
        int r;

        if (asprintf(&dir, "%s/%s", class_dir, name) < 0)
                return -ENOMEM;
        r = nvme_sysfs_read(dir, "transport", &transport);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0; /* gone, or not a controller */
        module = nvme_transport_module(transport);
        if (!module || streq(module, "nvme"))
                return 0; /* pcie, or a transport we do not know: not fabrics */
        c = fabrics_topology_add_controller(t);
        if (!c || !(c->name = strdup(name)))
                return -ENOMEM;
        c->transport = TAKE_PTR(transport);
        r = nvme_sysfs_read(dir, "subsysnqn", &c->subsysnqn);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                fabrics_topology_drop_last(t); /* half gone: not a connection we can name */
                return 0;
        }
        /* an address we cannot parse still names the connection (its NQN) */
        r = nvme_sysfs_read(dir, "address", &address);
        if (r == -ENOMEM)
                return r;
        if (r >= 0)
                (void) fabrics_parse_address(address, c);
        return 0;
}

static int topology_read_public(FabricsTopology **ret) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = calloc(1, sizeof(FabricsTopology));
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_free_ char *class_dir = NULL;
        int r;

        if (!t)
                return -ENOMEM;
        if (host_path("/sys/class/nvme", &class_dir) < 0)
                return -ENOMEM;
        r = nvme_sysfs_controllers(class_dir, &names); /* no NVMe at all: none */
        if (r < 0)
                return r;
        STRV_FOREACH(n, names) {
                r = read_controller(t, class_dir, *n);
                if (r < 0)
                        return r;
        }
        fabrics_topology_sort(t);
        *ret = TAKE_PTR(t);
        return 0;
}

int guard_fabrics_read_real(void *userdata, GuardFabrics **ret) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = NULL;
        int r;

        r = topology_read_public(&t);
        if (r < 0)
                return r;
        return fabrics_from(t, GUARD_FABRICS_LIVE, ret);
}

/* Every NVMe PCI function, bound or not: a node with none and nvme_fabrics
 * loaded is fabrics-only; -ENOENT when there is no PCI bus to see. */
int guard_nvme_pci_functions_real(void *userdata, unsigned *ret) {
        return nvme_pci_functions(ret, NULL);
}
