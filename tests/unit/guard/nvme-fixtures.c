/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>

#include "fake-tree.h"
#include "nvme-fixtures.h"

static void controller(const char *path, const char *name, const char *serial, const char *nqn) {
        char rel[512];

        snprintf(rel, sizeof(rel), "sys/devices/%s/serial", path);
        fake_writef(rel, "%s\n", serial);
        snprintf(rel, sizeof(rel), "sys/devices/%s/subsysnqn", path);
        fake_writef(rel, "%s\n", nqn);
        snprintf(rel, sizeof(rel), "sys/devices/%s/transport", path);
        fake_write(rel, "pcie\n");
        snprintf(rel, sizeof(rel), "sys/devices/%s/state", path);
        fake_write(rel, "live\n");
        snprintf(rel, sizeof(rel), "sys/class/nvme/%s", name);
        {
                char target[512];

                snprintf(target, sizeof(target), "../../devices/%s", path);
                fake_symlink(rel, target);
        }
}

void fixture_plain_namespace(void) {
        controller(PCI0, "nvme0", "S0   ", "nqn.2019-08.org.qemu:S0");
        fake_block_device(PCI0, "nvme0n1", "259:0", "2048");
        fake_write("sys/devices/" PCI0 "/nvme0n1/nsid", "1\n");
        fake_write("sys/devices/" PCI0 "/nvme0n1/hidden", "0\n");
        fake_symlink("sys/devices/" PCI0 "/nvme0n1/device", "../../nvme0");
        fake_block_device(PCI0 "/nvme0n1", "nvme0n1p1", "259:1", "1024");
        fake_write("sys/devices/" PCI0 "/nvme0n1/nvme0n1p1/partition", "1\n");
        fake_mkdir("sys/devices/" PCI0 "/nvme0n1/holders");
        fake_mkdir("sys/devices/" PCI0 "/nvme0n1/nvme0n1p1/holders");
        fake_symlink("sys/class/nvme-subsystem/nvme-subsys0", "../../devices/virtual/nvme-subsystem/nvme-subsys0");
        fake_write("sys/devices/virtual/nvme-subsystem/nvme-subsys0/subsysnqn", "nqn.2019-08.org.qemu:S0\n");
        fake_symlink("sys/devices/virtual/nvme-subsystem/nvme-subsys0/nvme0", "../../../" PCI0);
}

void fixture_multipath_head(void) {
        controller(PCI1, "nvme1", "SA", "nqn.2019-08.org.qemu:subsys1");
        controller(PCI2, "nvme2", "SB", "nqn.2019-08.org.qemu:subsys1");
        fake_write("sys/devices/" SUBSYS1 "/subsysnqn", "nqn.2019-08.org.qemu:subsys1\n");
        fake_write("sys/devices/" SUBSYS1 "/serial", "SUBSYS-SERIAL\n");
        fake_symlink("sys/devices/" SUBSYS1 "/nvme1", "../../../" PCI1);
        fake_symlink("sys/devices/" SUBSYS1 "/nvme2", "../../../" PCI2);
        fake_symlink("sys/class/nvme-subsystem/nvme-subsys1", "../../devices/" SUBSYS1);
        fake_block_device(SUBSYS1, "nvme1n1", "259:2", "4096");
        fake_write("sys/devices/" SUBSYS1 "/nvme1n1/nsid", "7\n");
        fake_symlink("sys/devices/" SUBSYS1 "/nvme1n1/device", "../../nvme-subsys1");
        fake_block_device(PCI1, "nvme1c1n1", "259:3", "4096");
        fake_write("sys/devices/" PCI1 "/nvme1c1n1/hidden", "1\n");
        fake_block_device(PCI2, "nvme1c2n1", "259:4", "4096");
        fake_write("sys/devices/" PCI2 "/nvme1c2n1/hidden", "1\n");
}
