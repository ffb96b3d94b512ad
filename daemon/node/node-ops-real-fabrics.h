/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The fabrics reads of node_ops_real (node-ops.h): public sysfs only.
 * The capture with its secrets and the connect are not the daemon's
 * (nvme-swapguard-fabrics.service): none of that code is linked here. */

#include "node/node-ops.h"

int node_fabrics_read_real(void *userdata, NodeFabrics **ret);
int node_nvme_pci_functions_real(void *userdata, unsigned *ret);
