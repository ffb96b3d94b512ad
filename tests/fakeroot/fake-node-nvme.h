/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* NVMe controllers and namespaces (fake-node-nvme.c); part of fake-node.h. */

#include <stdbool.h>

typedef struct FakeNode FakeNode;

/* A controller nvme<ctrl> (PCIe unless transport says otherwise) in its own
 * subsystem nvme-subsys<ctrl>; created by add_namespace when missing. */
int fake_node_add_controller(FakeNode *n, unsigned ctrl, const char *transport, const char *serial,
                             const char *model);
/* Namespace nvme<ctrl>n<nsid>: a plain one under the controller, or a
 * multipath head under the subsystem with its hidden path
 * nvme<ctrl>c<ctrl>n<nsid>; with partitions p1..pN. Block devnos are 259:k
 * in creation order; /dev/<name> is a regular file. */
int fake_node_add_namespace(FakeNode *n, unsigned ctrl, unsigned nsid, bool multipath, unsigned partitions);
