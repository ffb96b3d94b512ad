/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Which controllers serve a namespace, and which transport module drives a
 * controller, from sysfs (through host-root), on 6.1:
 *   plain namespace  /sys/class/block/nvme0n1 -> .../nvme/nvme0/nvme0n1:
 *                    its parent directory is its one controller;
 *   multipath head   /sys/class/block/nvme1n1 -> .../nvme-subsystem/nvme-subsys1/nvme1n1:
 *                    every controller linked from the subsystem directory
 *                    (nvme-subsys1/nvme1, nvme-subsys1/nvme2, ...).
 *   transport        /sys/class/nvme/nvme0/transport: pcie, tcp, rdma, fc, loop. */

/* Controller names ("nvme0", "nvme2"), sorted; a strv. -ENOENT when sysfs
 * does not list the namespace, -ENOMEM. */
int nvme_namespace_controllers(const char *namespace_name, char ***ret);

/* The module that implements a transport name ("pcie" -> "nvme", "tcp" ->
 * "nvme_tcp"); NULL for a name we do not know. Pure. */
const char *nvme_transport_module(const char *transport);

/* The transport module of a controller, from its transport attribute.
 * 0 with *ret a static string, -ENOENT (no such controller), -EINVAL
 * (a transport we do not know), -errno. */
int nvme_controller_transport_module(const char *ctrl, const char **ret);
