/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Builds and edits a fake node under a directory: the /proc, /sys, /dev and
 * /lib/modules that nvme-swapguard reads through host-root, laid out like a
 * real Linux 6.x node (NVMe controllers and namespaces under /sys/devices,
 * /sys/class/block and /sys/block links, /proc/modules in the kernel's own
 * format, /proc/1/mountinfo, /proc/swaps, dm holders, /proc/<pid>/fd).
 *
 * Used by the fake-root tests, the fake kernel (fake-kernel.c: it keeps the
 * tree consistent when modules are inserted and removed), the `fake-node`
 * command for shell tests, the daemon tests and the benchmarks, all through
 * one static library; each part of the node has its own header, below.
 * Every call works on the files only, so a tree can be built by several
 * processes one step after another. All calls return 0 or -errno. */

#define FAKE_NODE_DEFAULT_RELEASE "6.1.0-fake-amd64"

typedef struct FakeNode FakeNode;

/* Creates the skeleton (or opens an existing one) under dir, an absolute path. */
int fake_node_new(const char *dir, FakeNode **ret);
FakeNode *fake_node_free(FakeNode *n);
const char *fake_node_root(const FakeNode *n);

/* proc/sys/kernel/osrelease; the host tree is lib/modules/<release>. */
int fake_node_set_osrelease(FakeNode *n, const char *release);
int fake_node_get_osrelease(FakeNode *n, char **ret);

void fake_strv_free(char **l);

/* The parts, one file each. */
#include "fake-node-modules.h"
#include "fake-node-nvme.h"
#include "fake-node-users.h"
#include "fake-node-mntns.h"
#include "fake-node-claim.h"
#include "fake-node-ko.h"
#include "fake-node-depmod.h"
#include "fake-node-containers.h"
#include "fake-node-fabrics.h"
