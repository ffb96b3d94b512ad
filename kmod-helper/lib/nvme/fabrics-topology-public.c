/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host-root.h"
#include "nvme/fabrics-topology-public.h"
#include "nvme/nvme-controllers.h"
#include "nvme/nvme-sysfs.h"
#include "util/macro.h"
#include "util/strv.h"

int fabrics_controllers_read_each(FabricsControllerReader read, FabricsTopology **ret) {
        _cleanup_(fabrics_topology_freep) FabricsTopology *t = calloc(1, sizeof(FabricsTopology));
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_free_ char *class_dir = NULL;
        int r;

        if (!t)
                return -ENOMEM;
        r = host_path("/sys/class/nvme", &class_dir);
        if (r < 0)
                return r;
        r = nvme_sysfs_controllers(class_dir, &names);
        if (r < 0)
                return r;
        STRV_FOREACH(n, names)
                if ((r = read(t, class_dir, *n)) < 0)
                        return r;
        fabrics_topology_sort(t);
        *ret = TAKE_PTR(t);
        return 0;
}

static int read_public(FabricsTopology *t, const char *class_dir, const char *name) {
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

int fabrics_topology_public_read(FabricsTopology **ret) {
        return fabrics_controllers_read_each(read_public, ret);
}
