/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* NVMe controllers with no driver: PCI functions of class 0x0108 (mass
 * storage, non-volatile memory; prog-if 02 is NVMe) under
 * /sys/bus/pci/devices with no `driver` link. With the nvme module absent,
 * these are the node's drives, unreachable: whatever a (lost or truncated)
 * state file says, the in-tree stack must come back. Read through
 * host_path(). */

#include <stdbool.h>

/* Every NVMe PCI function (class 0x010802), and those of them with no
 * driver: 0 with both counts (either pointer may be NULL), -ENOENT when
 * there is no PCI bus to see (a container, a node without PCI), -errno. */
int nvme_pci_functions(unsigned *ret_all, unsigned *ret_unbound);

/* 0 with *ret the number of such controllers (0 when the bus directory is
 * missing, as in a container or on a node without PCI), or -errno. */
int nvme_controllers_unbound(unsigned *ret);
