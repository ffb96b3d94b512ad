/* SPDX-License-Identifier: Apache-2.0 */
/* NVMe controllers with no driver bound, from a fake /sys/bus/pci. */
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host-root.h"
#include "nvme/nvme-unbound.h"

static char dir[64];

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(p);
}

static void pci(const char *bdf, const char *class, bool bound) {
        char p[256];
        FILE *f;

        snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/%s", dir, bdf);
        cr_assert_eq(mkdir(p, 0755), 0);
        snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/%s/class", dir, bdf);
        f = fopen(p, "we");
        fprintf(f, "%s\n", class);
        fclose(f);
        if (bound) {
                snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/%s/driver", dir, bdf);
                cr_assert_eq(symlink("../../../bus/pci/drivers/nvme", p), 0);
        }
}

Test(nvme_unbound, counts_nvme_functions_without_driver) {
        char p[256];
        unsigned n = 99, all = 99;

        strcpy(dir, "/tmp/sg-unbound-XXXXXX");
        cr_assert_not_null(mkdtemp(dir));
        cr_assert_eq(host_root_set(dir), 0);
        cr_assert_eq(nvme_controllers_unbound(&n), 0, "no PCI bus: none");
        cr_assert_eq(n, 0);
        cr_assert_eq(nvme_pci_functions(&all, NULL), -ENOENT, "no PCI bus: cannot tell a fabrics-only node");

        snprintf(p, sizeof(p), "%s/sys/bus/pci/devices", dir);
        for (char *s = strchr(p + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = '\0';
                mkdir(p, 0755);
                *s = '/';
        }
        mkdir(p, 0755);
        pci("0000:00:04.0", "0x010802", false);
        pci("0000:00:05.0", "0x010802", true);
        pci("0000:00:06.0", "0x020000", false); /* a NIC without driver: not ours */
        pci("0000:00:07.0", "0x010802", false);
        cr_assert_eq(nvme_controllers_unbound(&n), 0);
        cr_assert_eq(n, 2);
        cr_assert_eq(nvme_pci_functions(&all, &n), 0);
        cr_assert_eq(all, 3, "every NVMe function, bound or not");
        cr_assert_eq(n, 2);
        host_root_set(NULL);
        nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
