/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* modules.dep (fake-node-depmod.c); part of fake-node.h. */

typedef struct FakeNode FakeNode;

/* Writes tree/modules.dep from the .ko files under it and their depends=
 * (transitively, as depmod does). */
int fake_node_write_modules_dep(FakeNode *n, const char *tree);
