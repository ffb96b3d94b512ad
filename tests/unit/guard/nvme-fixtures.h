/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Fake sysfs NVMe layouts shared by the nvme and usage tests, as Linux 6.1
 * lays them out (drivers/nvme/host/core.c, multipath.c). */

#define PCI0 "pci0000:00/0000:00:04.0/nvme/nvme0"
#define PCI1 "pci0000:00/0000:00:05.0/nvme/nvme1"
#define PCI2 "pci0000:00/0000:00:06.0/nvme/nvme2"
#define SUBSYS1 "virtual/nvme-subsystem/nvme-subsys1"

/* nvme0 (serial S0) with namespace nvme0n1 (259:0, 1 MiB, nsid 1) and its
 * partition nvme0n1p1 (259:1). */
void fixture_plain_namespace(void);

/* nvme-subsys1 with controllers nvme1 (serial SA) and nvme2 (SB), a head
 * nvme1n1 (259:2, nsid 7) and hidden paths nvme1c1n1, nvme1c2n1. */
void fixture_multipath_head(void);
