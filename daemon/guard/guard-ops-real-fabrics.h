/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The fabrics operations of guard_ops_real (guard-ops.h, issue 27), with
 * the library's nvme/fabrics-topology.h, nvme/fabrics-record.h and
 * actions/fabrics-reconnect.h. */

#include "guard/guard-ops.h"

int guard_fabrics_read_real(void *userdata, GuardFabrics **ret);
int guard_fabrics_save_real(void *userdata, GuardFabrics **ret);
int guard_fabrics_pending_real(void *userdata, GuardFabrics **ret);
int guard_fabrics_reconnect_real(void *userdata, unsigned timeout_sec, GuardFabrics **ret);
int guard_nvme_pci_functions_real(void *userdata, unsigned *ret);
