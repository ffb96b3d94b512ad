/* SPDX-License-Identifier: Apache-2.0 */

/* NodeOps' fabrics reads with the guard library: the topology from
 * public sysfs (the secrets' attributes only as present or not), copied
 * into the daemon's NodeFabrics, which never holds a secret. */

#include <stdlib.h>
#include <string.h>

#include "node/node-ops-real-fabrics.h"
#include "nvme/fabrics-topology-public.h"
#include "nvme/fabrics-topology.h"
#include "nvme/nvme-unbound.h"
#include "util/macro.h"

static int dup_or_null(const char *s, char **ret) {
        *ret = NULL;
        if (!s)
                return 0;
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

static int connection_from(NodeFabrics *f, const FabricsController *c, NodeFabricsOutcome outcome) {
        NodeFabricsConnection *x = node_fabrics_add(f);

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

static int fabrics_from(const FabricsTopology *t, NodeFabricsOutcome outcome, NodeFabrics **ret) {
        _cleanup_(node_fabrics_freep) NodeFabrics *f = calloc(1, sizeof(*f));
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

int node_fabrics_read_real(void *userdata, NodeFabrics **ret) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = NULL;
        int r;

        /* Public attributes only: never the library's fabrics_topology_read(),
         * which looks at the secrets' files (fabrics-topology-public.h). */
        r = fabrics_topology_public_read(&t);
        if (r < 0)
                return r;
        return fabrics_from(t, NODE_FABRICS_LIVE, ret);
}

/* Every NVMe PCI function, bound or not: a node with none and nvme_fabrics
 * loaded is fabrics-only; -ENOENT when there is no PCI bus to see. */
int node_nvme_pci_functions_real(void *userdata, unsigned *ret) {
        return nvme_pci_functions(ret, NULL);
}
