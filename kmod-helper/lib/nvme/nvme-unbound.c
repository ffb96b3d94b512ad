/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "host/host-root.h"
#include "nvme/nvme-unbound.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

/* Whether the PCI function dir/name is an NVMe controller, and whether a
 * driver is bound to it: 1 NVMe, 0 not (or gone meanwhile), -errno. */
static int pci_nvme_function(const char *bus, const char *name, bool *ret_bound) {
        _cleanup_free_ char *class_path = NULL, *driver = NULL, *class = NULL;
        int r;

        if (asprintf(&class_path, "%s/%s/class", bus, name) < 0 || asprintf(&driver, "%s/%s/driver", bus, name) < 0)
                return -ENOMEM;
        if (read_one_line_file(class_path, &class) < 0)
                return 0; /* gone meanwhile */
        /* "0x010802": class 01 (mass storage), subclass 08 (NVM), prog-if 02 (NVMe) */
        if (!strneq(class, "0x010802", 8))
                return 0;
        r = path_exists(driver);
        if (r < 0)
                return r;
        *ret_bound = r > 0;
        return 1;
}

int nvme_pci_functions(unsigned *ret_all, unsigned *ret_unbound) {
        _cleanup_free_ char *bus = NULL;
        _cleanup_strv_free_ char **names = NULL;
        unsigned all = 0, unbound = 0;
        int r;

        r = host_path("/sys/bus/pci/devices", &bus);
        if (r < 0)
                return r;
        r = read_dir_names(bus, &names);
        if (r < 0)
                return r; /* -ENOENT: no PCI bus to see */
        STRV_FOREACH(d, names) {
                bool bound = false;

                r = pci_nvme_function(bus, *d, &bound);
                if (r < 0)
                        return r;
                if (r == 0)
                        continue;
                all++;
                if (!bound)
                        unbound++;
        }
        if (ret_all)
                *ret_all = all;
        if (ret_unbound)
                *ret_unbound = unbound;
        return 0;
}

int nvme_controllers_unbound(unsigned *ret) {
        int r = nvme_pci_functions(NULL, ret);

        if (r == -ENOENT) {
                *ret = 0;
                return 0;
        }
        return r;
}
