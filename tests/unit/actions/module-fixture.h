/* SPDX-License-Identifier: Apache-2.0 */
/* What the module tests build on disk: a minimal ELF64 relocatable object
 * with the .modinfo a test chooses (written here rather than taken from the
 * fake node, so that a test can break it on purpose), and a scratch tree
 * under /tmp to write module trees into. */
#pragma once

#include <stddef.h>

/* A .ko of MODINFO's bytes in BUF (at most CAP); returns its size. */
size_t fixture_ko(const char *modinfo, size_t milen, unsigned char *buf, size_t cap);
/* fixture_ko(MODINFO("name=nvme\0..."), ...): a string literal and its length without the last NUL */
#define MODINFO(s) s, sizeof(s) - 1

/* The scratch tree: fixture_tree_make("sg-x") creates /tmp/sg-x-XXXXXX,
 * fixture_tree_remove() removes it and all below it. */
extern char fixture_tree[64];
void fixture_tree_make(const char *prefix);
void fixture_tree_remove(void);
/* REL (a path inside the tree, its directories created) holds DATA. */
void fixture_tree_write(const char *rel, const void *data, size_t n);
