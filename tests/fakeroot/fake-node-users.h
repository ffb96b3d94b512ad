/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What uses a block device (fake-node-users.c); part of fake-node.h. */

#include <sys/types.h>

typedef struct FakeNode FakeNode;

/* A line in proc/1/mountinfo for /dev/<dev> (its devno from sysfs). */
int fake_node_add_mount(FakeNode *n, const char *dev, const char *mountpoint, const char *fstype);
/* A line in proc/swaps. */
int fake_node_add_swap(FakeNode *n, const char *dev);
/* dm-K (friendly name dm_name) stacked on dev: holders/ and slaves/ links. */
int fake_node_add_dm_holder(FakeNode *n, const char *dev, const char *dm_name);
/* proc/<pid>/{comm,cmdline,status} and an fd/ link to /dev/<dev>. */
int fake_node_add_process_fd(FakeNode *n, pid_t pid, const char *comm, const char *dev);
/* dev/.busy/<dev>: the fake kernel's exclusive open says EBUSY and nothing
 * else shows why (a mount in another namespace, a lazy unmount). */
int fake_node_claim(FakeNode *n, const char *dev);
