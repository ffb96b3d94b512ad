/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The fabrics reads of guard_ops_real (guard-ops.h): public sysfs only.
 * The capture with its secrets and the connect are not the daemon's
 * (nvme-swapguard-fabrics.service): none of that code is linked here. */

#include "guard/guard-ops.h"

int guard_fabrics_read_real(void *userdata, GuardFabrics **ret);
int guard_nvme_pci_functions_real(void *userdata, unsigned *ret);
