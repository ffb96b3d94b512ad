/* SPDX-License-Identifier: Apache-2.0 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/sysmacros.h>

#include "fake-tree.h"
#include "host/host-root.h"
#include "nvme-fixtures.h"
#include "nvme/nvme-block-devices.h"
#include "nvme/nvme-names.h"
#include "util/strv.h"

static void setup(void) {
        fake_tree_new();
}

TestSuite(nvme_block_devices, .init = setup, .fini = fake_tree_remove);

Test(nvme_block_devices, names) {
        _cleanup_free_ char *parent = NULL;

        cr_assert(nvme_name_is_namespace("nvme0n1"));
        cr_assert(nvme_name_is_namespace("nvme12n34"));
        cr_assert_not(nvme_name_is_namespace("nvme0n1p1"));
        cr_assert_not(nvme_name_is_namespace("nvme0c1n1"));
        cr_assert_not(nvme_name_is_namespace("nvme0"));
        cr_assert_not(nvme_name_is_namespace("nvme0n"));
        cr_assert_not(nvme_name_is_namespace("sda"));
        cr_assert(nvme_name_is_hidden_path("nvme0c1n1"));
        cr_assert_not(nvme_name_is_hidden_path("nvme0n1"));
        cr_assert_eq(nvme_partition_parent_name("nvme10n2p13", &parent), 0);
        cr_assert_str_eq(parent, "nvme10n2");
        cr_assert_eq(nvme_partition_parent_name("nvme10n2", &parent), -EINVAL);
}

Test(nvme_block_devices, plain_namespace_and_partition) {
        NvmeBlockDevices *d = NULL;
        const NvmeBlockDevice *ns, *part;

        fixture_plain_namespace();
        cr_assert_eq(nvme_block_devices_scan(&d), 0);
        cr_assert_eq(d->n_devices, 2);
        ns = &d->devices[0];
        part = &d->devices[1];
        cr_assert_str_eq(ns->name, "nvme0n1");
        cr_assert_not(ns->is_partition);
        cr_assert_not(ns->multipath_head);
        cr_assert_eq(ns->devno, makedev(259, 0));
        cr_assert_eq(ns->size_bytes, 2048 * 512);
        cr_assert_eq(ns->nsid, 1);
        cr_assert_str_eq(ns->serial, "S0", "trailing padding stripped");
        cr_assert_str_eq(ns->subsystem_nqn, "nqn.2019-08.org.qemu:S0");
        cr_assert_str_eq(part->name, "nvme0n1p1");
        cr_assert(part->is_partition);
        cr_assert_str_eq(part->namespace_name, "nvme0n1");
        cr_assert_eq(part->devno, makedev(259, 1));
        cr_assert_eq(part->size_bytes, 1024 * 512);
        cr_assert_eq(part->nsid, 1, "inherited from its namespace");
        cr_assert_str_eq(part->serial, "S0");
        cr_assert_eq(strv_length(d->notes), 0);
        cr_assert_eq(nvme_block_devices_find(d, "nvme0n1p1"), part);
        nvme_block_devices_free(d);
}

Test(nvme_block_devices, multipath_head_without_hidden_paths) {
        NvmeBlockDevices *d = NULL;

        fixture_multipath_head();
        /* A path named like a namespace but marked hidden is skipped too. */
        fake_block_device(PCI1, "nvme9n1", "259:9", "8");
        fake_write("sys/devices/" PCI1 "/nvme9n1/hidden", "1\n");
        cr_assert_eq(nvme_block_devices_scan(&d), 0);
        cr_assert_eq(d->n_devices, 1, "only the head: %zu", d->n_devices);
        cr_assert_str_eq(d->devices[0].name, "nvme1n1");
        cr_assert(d->devices[0].multipath_head);
        cr_assert_eq(d->devices[0].nsid, 7);
        cr_assert_str_eq(d->devices[0].serial, "SA", "the first controller's serial");
        cr_assert_str_eq(d->devices[0].subsystem_nqn, "nqn.2019-08.org.qemu:subsys1");
        nvme_block_devices_free(d);
}

Test(nvme_block_devices, head_detected_without_device_link) {
        NvmeBlockDevices *d = NULL;
        char link[4096];

        fixture_multipath_head();
        snprintf(link, sizeof(link), "%s/sys/devices/" SUBSYS1 "/nvme1n1/device", host_root());
        cr_assert_eq(unlink(link), 0);
        cr_assert_eq(nvme_block_devices_scan(&d), 0);
        cr_assert_eq(d->n_devices, 1);
        cr_assert(d->devices[0].multipath_head, "found through /sys/class/nvme-subsystem");
        nvme_block_devices_free(d);
}

Test(nvme_block_devices, odd_sysfs_is_noted_not_fatal) {
        NvmeBlockDevices *d = NULL;
        const NvmeBlockDevice *no_dev, *bad_size;

        fixture_plain_namespace();
        fake_block_device(PCI0, "nvme0n3", NULL, "100");        /* no `dev` */
        fake_block_device(PCI0, "nvme0n10", "259:10", "lots");  /* garbage size */
        fake_block_device(PCI0, "nvme0n2", "259:x", "8");      /* garbage dev */
        cr_assert_eq(nvme_block_devices_scan(&d), 0);
        cr_assert_eq(d->n_devices, 5);
        cr_assert_str_eq(d->devices[2].name, "nvme0n2", "natural order");
        cr_assert_str_eq(d->devices[3].name, "nvme0n3");
        cr_assert_str_eq(d->devices[4].name, "nvme0n10");
        no_dev = nvme_block_devices_find(d, "nvme0n3");
        cr_assert_eq(no_dev->devno, 0);
        cr_assert_eq(no_dev->size_bytes, 100 * 512);
        bad_size = nvme_block_devices_find(d, "nvme0n10");
        cr_assert_eq(bad_size->size_bytes, 0);
        cr_assert_eq(bad_size->devno, makedev(259, 10));
        cr_assert_eq(strv_length(d->notes), 3);
        cr_assert_not_null(strstr(d->notes[0], "/sys/class/block/nvme0n10/size"), "%s", d->notes[0]);
        cr_assert_not_null(strstr(d->notes[1], "/sys/class/block/nvme0n2/dev"), "%s", d->notes[1]);
        cr_assert_not_null(strstr(d->notes[2], "/sys/class/block/nvme0n3/dev is missing"), "%s", d->notes[2]);
        nvme_block_devices_free(d);
}

Test(nvme_block_devices, orphan_partition_is_noted) {
        NvmeBlockDevices *d = NULL;

        fake_mkdir("sys/class/block/nvme5n1p1");
        fake_write("sys/class/block/nvme5n1p1/dev", "259:50\n");
        fake_write("sys/class/block/nvme5n1p1/size", "8\n");
        fake_write("sys/class/block/nvme5n1p1/partition", "1\n");
        cr_assert_eq(nvme_block_devices_scan(&d), 0);
        cr_assert_eq(d->n_devices, 0);
        cr_assert_eq(strv_length(d->notes), 1);
        cr_assert_not_null(strstr(d->notes[0], "nvme5n1p1: partition of nvme5n1"), "%s", d->notes[0]);
        nvme_block_devices_free(d);
}

Test(nvme_block_devices, no_block_class_is_empty) {
        NvmeBlockDevices *d = NULL;

        cr_assert_eq(nvme_block_devices_scan(&d), 0);
        cr_assert_eq(d->n_devices, 0);
        nvme_block_devices_free(d);
}
