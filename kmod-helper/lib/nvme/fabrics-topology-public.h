/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The fabrics controllers of /sys/class/nvme from their public attributes
 * only (mode 0444: transport, subsysnqn, address): for the daemon, whose
 * CAP_DAC_READ_SEARCH would let it read the 0600 DH-HMAC-CHAP secrets that
 * fabrics_topology_read() (fabrics-topology-sysfs.h) looks at to tell
 * whether a connection has them. Whether a secret exists is the capture's
 * business, in its own unit; this file holds no name of one. */

#include "nvme/fabrics-topology.h"

/* Reads one controller <class_dir>/<name> into t: 0 and nothing added when
 * it is not fabrics or went away; -errno. */
typedef int (*FabricsControllerReader)(FabricsTopology *t, const char *class_dir, const char *name);

/* Each controller of /sys/class/nvme (through host-root) through read,
 * sorted; no NVMe at all is an empty topology. 0 or -errno; *ret untouched
 * on failure. */
int fabrics_controllers_read_each(FabricsControllerReader read, FabricsTopology **ret);

/* Every fabrics controller with its transport, subsysnqn and address; one
 * half gone while it is read is left out. The same contract otherwise as
 * fabrics_controllers_read_each(). */
int fabrics_topology_public_read(FabricsTopology **ret);
