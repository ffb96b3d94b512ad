/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>

#include <nvme/tree.h>

#include "nvme/nvme-inventory-libnvme.h"
#include "util/macro.h"

static int copy_controller(NvmeInventorySubsystem *s, nvme_ctrl_t c) {
        NvmeInventoryController *out = nvme_inventory_add_controller(s);
        bool failed = false;

        if (!out)
                return -ENOMEM;
        out->name = nvme_inventory_strdup(nvme_ctrl_get_name(c), &failed);
        out->transport = nvme_inventory_strdup(nvme_ctrl_get_transport(c), &failed);
        out->address = nvme_inventory_strdup(nvme_ctrl_get_address(c), &failed);
        out->serial = nvme_inventory_strdup(nvme_ctrl_get_serial(c), &failed);
        out->model = nvme_inventory_strdup(nvme_ctrl_get_model(c), &failed);
        out->state = nvme_inventory_strdup(nvme_ctrl_get_state(c), &failed);
        return failed ? -ENOMEM : 0;
}

static int copy_namespace(NvmeInventorySubsystem *s, nvme_ns_t n, const char *controller) {
        NvmeInventoryNamespace *out = nvme_inventory_add_namespace(s);
        bool failed = false;
        int nsid = nvme_ns_get_nsid(n), lba_size = nvme_ns_get_lba_size(n);

        if (!out)
                return -ENOMEM;
        out->name = nvme_inventory_strdup(nvme_ns_get_name(n), &failed);
        out->nsid = nsid > 0 ? (unsigned) nsid : 0;
        out->size_bytes = lba_size > 0 ? nvme_ns_get_lba_count(n) * (uint64_t) lba_size : 0;
        out->multipath_head = !controller;
        out->controller = nvme_inventory_strdup(controller, &failed);
        return failed ? -ENOMEM : 0;
}

static int copy_subsystem(NvmeInventory *inv, nvme_subsystem_t s) {
        NvmeInventorySubsystem *out = nvme_inventory_add_subsystem(inv);
        bool failed = false;
        nvme_ctrl_t c;
        nvme_ns_t n;
        int r;

        if (!out)
                return -ENOMEM;
        out->name = nvme_inventory_strdup(nvme_subsystem_get_name(s), &failed);
        out->nqn = nvme_inventory_strdup(nvme_subsystem_get_nqn(s), &failed);
        if (failed)
                return -ENOMEM;
        nvme_subsystem_for_each_ctrl(s, c) {
                if ((r = copy_controller(out, c)) < 0)
                        return r;
                nvme_ctrl_for_each_ns(c, n)
                        if ((r = copy_namespace(out, n, nvme_ctrl_get_name(c))) < 0)
                                return r;
        }
        nvme_subsystem_for_each_ns(s, n)
                if ((r = copy_namespace(out, n, NULL)) < 0)
                        return r;
        return 0;
}

static int copy_tree(nvme_root_t root, NvmeInventory *inv) {
        nvme_subsystem_t s;
        nvme_host_t h;
        int r;

        nvme_for_each_host(root, h)
                nvme_for_each_subsystem(h, s)
                        if ((r = copy_subsystem(inv, s)) < 0)
                                return r;
        return 0;
}

int nvme_inventory_libnvme(NvmeInventory **ret) {
        _cleanup_(nvme_inventory_freep) NvmeInventory *inv = calloc(1, sizeof(NvmeInventory));
        _cleanup_fclose_ FILE *devnull = NULL;
        nvme_root_t root;
        int r;

        if (!inv)
                return -ENOMEM;
        inv->source = "libnvme";
        /* Library code never prints: libnvme's messages go nowhere. */
        devnull = fopen("/dev/null", "we");
        if (!devnull)
                return -errno;
        root = nvme_create_root(devnull, LOG_EMERG);
        if (!root)
                return negative_errno();
        if (nvme_scan_topology(root, NULL, NULL) < 0 && errno != ENOENT) {
                r = negative_errno();
                nvme_free_tree(root);
                return r;
        }
        r = copy_tree(root, inv);
        /* Before returning, whatever happened: this closes the namespace
         * descriptors libnvme 1.3 opened during the scan. */
        nvme_free_tree(root);
        if (r < 0)
                return r;
        nvme_inventory_sort(inv);
        *ret = TAKE_PTR(inv);
        return 0;
}
