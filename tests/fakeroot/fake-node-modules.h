/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Loaded modules (fake-node-modules.c); part of fake-node.h. */

typedef struct FakeNode FakeNode;

/* A loaded module as sysfs and /proc/modules show it. refcnt < 0 means "as
 * many as holders". holders: NULL-terminated or NULL. taint: "" or NULL for
 * in-tree, "O", "OE". Holders need not exist as modules. */
int fake_node_add_module(FakeNode *n, const char *name, int refcnt, const char *const *holders,
                         const char *taint);
/* What the kernel does on a successful load: the module appears with
 * refcnt 0, and each dependency gains it as a holder and one reference. */
int fake_node_module_inserted(FakeNode *n, const char *name, const char *const *depends, const char *taint);
/* ...and on a successful removal: the reverse. */
int fake_node_module_removed(FakeNode *n, const char *name);
/* 1 loaded, 0 not. */
int fake_node_module_loaded(FakeNode *n, const char *name);
int fake_node_module_refcnt(FakeNode *n, const char *name, int *ret);
int fake_node_module_holders(FakeNode *n, const char *name, char ***ret); /* free with fake_strv_free */
int fake_node_module_set_refcnt(FakeNode *n, const char *name, int refcnt);
/* A "T" line in proc/kallsyms: "<addr> T <symbol>\t[<module>]"; a
 * removed module's lines go with it. */
int fake_node_add_kallsyms(FakeNode *n, const char *symbol, const char *module);
int fake_node_remove_kallsyms_of(FakeNode *n, const char *module);
