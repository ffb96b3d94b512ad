/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The live fabrics topology, read from sysfs through host-root (the layout
 * and formats: fabrics-topology.h). It reads whether a connection has
 * DH-HMAC-CHAP secrets from their 0600 attributes: for the passes that run
 * in their own unit, not for the daemon. */

#include "nvme/fabrics-topology.h"

/* Every fabrics controller (transport other than pcie) of /sys/class/nvme.
 * No NVMe at all, or none over fabrics, is an empty topology. A controller
 * that goes away while it is read is left out. 0 or -errno; *ret untouched
 * on failure. */
int fabrics_topology_read(FabricsTopology **ret);
