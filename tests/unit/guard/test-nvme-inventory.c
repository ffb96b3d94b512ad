/* SPDX-License-Identifier: Apache-2.0 */
#include <criterion/criterion.h>

#include "fake-tree.h"
#include "nvme-fixtures.h"
#include "nvme/nvme-inventory.h"

static void setup(void) {
        fake_tree_new();
}

TestSuite(nvme_inventory, .init = setup, .fini = fake_tree_remove);

Test(nvme_inventory, fake_root_reads_sysfs) {
        NvmeInventory *inv = NULL;
        const NvmeInventorySubsystem *s0, *s1;

        fixture_plain_namespace();
        fixture_multipath_head();
        cr_assert_eq(nvme_inventory_read(&inv), 0);
        cr_assert_str_eq(inv->source, "sysfs");
        cr_assert_eq(inv->n_subsystems, 2);
        s0 = &inv->subsystems[0];
        s1 = &inv->subsystems[1];
        cr_assert_str_eq(s0->name, "nvme-subsys0");
        cr_assert_str_eq(s0->nqn, "nqn.2019-08.org.qemu:S0");
        cr_assert_eq(s0->n_controllers, 1);
        cr_assert_str_eq(s0->controllers[0].name, "nvme0");
        cr_assert_str_eq(s0->controllers[0].transport, "pcie");
        cr_assert_str_eq(s0->controllers[0].state, "live");
        cr_assert_null(s0->controllers[0].model, "absent attributes stay NULL");
        cr_assert_eq(s0->n_namespaces, 1);
        cr_assert_str_eq(s0->namespaces[0].name, "nvme0n1");
        cr_assert_str_eq(s0->namespaces[0].controller, "nvme0");
        cr_assert_not(s0->namespaces[0].multipath_head);
        cr_assert_eq(s0->namespaces[0].size_bytes, 2048 * 512);
        cr_assert_eq(s1->n_controllers, 2);
        cr_assert_str_eq(s1->controllers[1].serial, "SB");
        cr_assert_eq(s1->n_namespaces, 1, "the head only; hidden paths are not namespaces");
        cr_assert_str_eq(s1->namespaces[0].name, "nvme1n1");
        cr_assert(s1->namespaces[0].multipath_head);
        cr_assert_null(s1->namespaces[0].controller);
        cr_assert_eq(s1->namespaces[0].nsid, 7);
        nvme_inventory_free(inv);
}

Test(nvme_inventory, no_nvme_is_empty) {
        NvmeInventory *inv = NULL;

        cr_assert_eq(nvme_inventory_read(&inv), 0);
        cr_assert_eq(inv->n_subsystems, 0);
        nvme_inventory_free(inv);
}
