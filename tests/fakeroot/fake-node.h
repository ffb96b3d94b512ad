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
 * command for shell tests, the daemon tests, the benchmarks and the
 * fuzzers. Every call works on the files only, so a tree can be built by
 * several processes one step after another. All calls return 0 or -errno. */

#include <stdbool.h>
#include <sys/types.h>

#define FAKE_NODE_DEFAULT_RELEASE "6.1.0-fake-amd64"

typedef struct FakeNode FakeNode;

/* Creates the skeleton (or opens an existing one) under dir, an absolute path. */
int fake_node_new(const char *dir, FakeNode **ret);
FakeNode *fake_node_free(FakeNode *n);
const char *fake_node_root(const FakeNode *n);

/* proc/sys/kernel/osrelease; the host tree is lib/modules/<release>. */
int fake_node_set_osrelease(FakeNode *n, const char *release);
int fake_node_get_osrelease(FakeNode *n, char **ret);

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

/* A controller nvme<ctrl> (PCIe unless transport says otherwise) in its own
 * subsystem nvme-subsys<ctrl>; created by add_namespace when missing. */
int fake_node_add_controller(FakeNode *n, unsigned ctrl, const char *transport, const char *serial,
                             const char *model);
/* Namespace nvme<ctrl>n<nsid>: a plain one under the controller, or a
 * multipath head under the subsystem with its hidden path
 * nvme<ctrl>c<ctrl>n<nsid>; with partitions p1..pN. Block devnos are 259:k
 * in creation order; /dev/<name> is a regular file. */
int fake_node_add_namespace(FakeNode *n, unsigned ctrl, unsigned nsid, bool multipath, unsigned partitions);

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
/* A "T" line in proc/kallsyms: "<addr> T <symbol>\t[<module>]". */
int fake_node_add_kallsyms(FakeNode *n, const char *symbol, const char *module);
int fake_node_remove_kallsyms_of(FakeNode *n, const char *module);

/* A module file: a small ELF relocatable object whose .modinfo section has
 * name=, depends= (comma-separated), vermagic= ("<release> SMP mod_unload ";
 * NULL: the node's release) and any extra "key=value" strings (NULL-terminated
 * list or NULL). tree: an absolute path inside the node ("/lib/modules/R" or
 * "/proc/4242/root/lib/modules/R"); relpath: inside the tree. */
int fake_node_add_ko(FakeNode *n, const char *tree, const char *relpath, const char *name,
                     const char *depends, const char *vermagic, const char *const *extra);
/* Writes tree/modules.dep from the .ko files under it and their depends=
 * (transitively, as depmod does). */
int fake_node_write_modules_dep(FakeNode *n, const char *tree);

/* Whether the fake kernel's exclusive open of /dev/<dev> would fail: the
 * dev/.busy marker, a mount by devno or source, a swap, a holder, or any of
 * these on one of its partitions. 1 busy, 0 free. */
int fake_node_device_claimed(FakeNode *n, const char *dev);

/* The .modinfo strings of an ELF image in memory: NULL-separated
 * "key=value" area; 0 and *ret, *ret_size pointing into image, or -ENOEXEC. */
int fake_elf_modinfo(const void *image, size_t size, const char **ret, size_t *ret_size);
/* Value of key in a modinfo area (malloc'd), or NULL. */
char *fake_modinfo_get(const char *modinfo, size_t size, const char *key);

void fake_strv_free(char **l);
