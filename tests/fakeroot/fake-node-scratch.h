/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

#include "fake-node.h"

/* A fake node in a fresh directory under /tmp, for one test: the directory
 * holds the node's root ("<dir>/root") and whatever else the test writes
 * beside it (a syscall spy's log, say). Closing frees the node and removes
 * the directory, unless FAKEROOT_KEEP is set (to look at a failing case). */
typedef struct FakeNodeScratch {
        char dir[64];
        char root[128];
        FakeNode *node;
} FakeNodeScratch;

/* label names the directory (/tmp/sg-<label>-XXXXXX); 0 or -errno. */
int fake_node_scratch_open(FakeNodeScratch *s, const char *label);
void fake_node_scratch_close(FakeNodeScratch *s);
