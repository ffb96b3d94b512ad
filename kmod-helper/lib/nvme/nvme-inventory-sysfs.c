/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "host/host-root.h"
#include "nvme/nvme-inventory-sysfs.h"
#include "nvme/nvme-names.h"
#include "nvme/nvme-sysfs.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/parse-util.h"
#include "util/strv.h"

/* The sysfs layout libnvme itself reads:
 *   /sys/class/nvme-subsystem/nvme-subsys0/{subsysnqn, nvme0 -> ctrl, nvme0n1 (a head)}
 *   /sys/class/nvme/nvme0/{transport, address, serial, model, state, nvme0n1 (plain ns)} */

static int add_namespace(NvmeInventorySubsystem *s, const char *parent_dir, const char *name,
                         const char *controller) {
        _cleanup_free_ char *dir = NULL, *size = NULL, *nsid = NULL;
        NvmeInventoryNamespace *n;
        uint64_t sectors;
        int r;

        if (asprintf(&dir, "%s/%s", parent_dir, name) < 0)
                return -ENOMEM;
        if ((r = nvme_sysfs_read_opt(dir, "size", &size)) < 0 || (r = nvme_sysfs_read_opt(dir, "nsid", &nsid)) < 0)
                return r;
        n = nvme_inventory_add_namespace(s);
        if (!n || !(n->name = strdup(name)) || (controller && !(n->controller = strdup(controller))))
                return -ENOMEM;
        n->multipath_head = !controller;
        if (size && safe_atou64(size, &sectors) >= 0 && sectors <= UINT64_MAX / 512)
                n->size_bytes = sectors * 512; /* odd values stay 0: "unknown" */
        if (nsid)
                (void) safe_atou(nsid, &n->nsid);
        return 0;
}

static int add_controller(NvmeInventorySubsystem *s, const char *name) {
        static const char *const attrs[] = { "transport", "address", "serial", "model", "state" };
        _cleanup_strv_free_ char **entries = NULL;
        _cleanup_free_ char *dir = NULL;
        NvmeInventoryController *c;
        char **fields[ELEMENTSOF(attrs)];
        int r;

        r = host_pathf(&dir, "/sys/class/nvme/%s", name);
        if (r < 0)
                return r;
        c = nvme_inventory_add_controller(s);
        if (!c || !(c->name = strdup(name)))
                return -ENOMEM;
        fields[0] = &c->transport, fields[1] = &c->address, fields[2] = &c->serial;
        fields[3] = &c->model, fields[4] = &c->state;
        for (size_t i = 0; i < ELEMENTSOF(attrs); i++)
                if ((r = nvme_sysfs_read_opt(dir, attrs[i], fields[i])) < 0)
                        return r;
        r = nvme_sysfs_list(dir, &entries);
        if (r < 0)
                return r;
        STRV_FOREACH(e, entries)
                if (nvme_name_is_namespace(*e) && (r = add_namespace(s, dir, *e, name)) < 0)
                        return r;
        return 0;
}

static int add_subsystem(NvmeInventory *inv, const char *class_dir, const char *name) {
        _cleanup_strv_free_ char **entries = NULL;
        _cleanup_free_ char *dir = NULL;
        NvmeInventorySubsystem *s;
        int r;

        if (asprintf(&dir, "%s/%s", class_dir, name) < 0)
                return -ENOMEM;
        s = nvme_inventory_add_subsystem(inv);
        if (!s || !(s->name = strdup(name)))
                return -ENOMEM;
        if ((r = nvme_sysfs_read_opt(dir, "subsysnqn", &s->nqn)) < 0 || (r = nvme_sysfs_list(dir, &entries)) < 0)
                return r;
        STRV_FOREACH(e, entries)
                if (nvme_name_is_controller(*e) && (r = add_controller(s, *e)) < 0)
                        return r;
        STRV_FOREACH(e, entries)
                if (nvme_name_is_namespace(*e) && (r = add_namespace(s, dir, *e, NULL)) < 0)
                        return r;
        return 0;
}

int nvme_inventory_read_sysfs(NvmeInventory **ret) {
        _cleanup_(nvme_inventory_freep) NvmeInventory *inv = calloc(1, sizeof(NvmeInventory));
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_free_ char *class_dir = NULL;
        int r;

        if (!inv)
                return -ENOMEM;
        inv->source = "sysfs";
        r = host_path("/sys/class/nvme-subsystem", &class_dir);
        if (r < 0)
                return r;
        r = nvme_sysfs_list(class_dir, &names);
        if (r < 0)
                return r;
        STRV_FOREACH(n, names)
                if ((r = add_subsystem(inv, class_dir, *n)) < 0)
                        return r;
        nvme_inventory_sort(inv);
        *ret = TAKE_PTR(inv);
        return 0;
}
