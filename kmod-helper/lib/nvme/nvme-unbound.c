/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <string.h>

#include "host/host-root.h"
#include "nvme/nvme-unbound.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

int nvme_controllers_unbound(unsigned *ret) {
        _cleanup_free_ char *bus = NULL;
        _cleanup_strv_free_ char **names = NULL;
        unsigned n = 0;
        int r;

        r = host_path("/sys/bus/pci/devices", &bus);
        if (r < 0)
                return r;
        r = read_dir_names(bus, &names);
        if (r == -ENOENT) {
                *ret = 0;
                return 0;
        }
        if (r < 0)
                return r;
        STRV_FOREACH(d, names) {
                _cleanup_free_ char *class_path = NULL, *driver = NULL, *class = NULL;

                if (asprintf(&class_path, "%s/%s/class", bus, *d) < 0 || asprintf(&driver, "%s/%s/driver", bus, *d) < 0)
                        return -ENOMEM;
                if (read_one_line_file(class_path, &class) < 0)
                        continue; /* gone meanwhile */
                /* "0x010802": class 01 (mass storage), subclass 08 (NVM), prog-if 02 (NVMe) */
                if (!strneq(class, "0x010802", 8))
                        continue;
                r = path_exists(driver);
                if (r < 0)
                        return r;
                if (r == 0)
                        n++;
        }
        *ret = n;
        return 0;
}
