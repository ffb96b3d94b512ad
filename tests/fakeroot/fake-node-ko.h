/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Module files (fake-node-ko.c); part of fake-node.h. */

#include <stddef.h>

typedef struct FakeNode FakeNode;

/* A module file: a small ELF relocatable object whose .modinfo section has
 * name=, depends= (comma-separated), vermagic= ("<release> SMP mod_unload ";
 * NULL: the node's release) and any extra "key=value" strings (NULL-terminated
 * list or NULL). tree: an absolute path inside the node ("/lib/modules/R" or
 * "/proc/4242/root/lib/modules/R"); relpath: inside the tree. */
int fake_node_add_ko(FakeNode *n, const char *tree, const char *relpath, const char *name,
                     const char *depends, const char *vermagic, const char *const *extra);

/* The .modinfo strings of an ELF image in memory: NULL-separated
 * "key=value" area; 0 and *ret, *ret_size pointing into image, or -ENOEXEC. */
int fake_elf_modinfo(const void *image, size_t size, const char **ret, size_t *ret_size);
/* Value of key in a modinfo area (malloc'd), or NULL. */
char *fake_modinfo_get(const char *modinfo, size_t size, const char *key);
