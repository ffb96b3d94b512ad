/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The kernel's claim (fake-node-claim.c); part of fake-node.h. */

typedef struct FakeNode FakeNode;

/* Whether the fake kernel's exclusive open of /dev/<dev> would fail: the
 * dev/.busy marker, a mount by devno or source, a swap, a holder, or any of
 * these on one of its partitions. 1 busy, 0 free. */
int fake_node_device_claimed(FakeNode *n, const char *dev);
