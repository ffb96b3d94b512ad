/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The live state of the NVMe host stack's kernel modules, read from
 * /proc/modules and /sys/module/<m>/ (through host-root), and which build
 * each loaded module is. Reading only: nothing here changes the kernel. */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "modules/module-origin.h"
#include "util/macro.h"

typedef struct ModuleInfo {
        char *name;                 /* kernel spelling: nvme_core, not nvme-core */
        ModuleRole role;
        bool loaded;
        char *initstate;            /* "live", "coming", "going"; NULL when absent */
        int refcnt;                 /* -1 when absent */
        char **holders;             /* NULL-terminated; never NULL, may be empty */
        size_t n_holders;
        char *taint;                /* "" when untainted; NULL when absent */
        char *srcversion;           /* NULL when absent or not exported */
        bool depends_on_mlx_compat; /* /sys/module/mlx_compat/holders/<name> exists */
        bool may_have_gds_hooks;    /* loaded with O in its taint, or a taint that could not be
                                       read: only such a module is asked of /proc/kallsyms */
        bool has_gds_hooks;         /* exports *_register_nvfs_dma_ops (/proc/kallsyms) */
        char *gds_generations;      /* which: "v1", "v2", "v1,v2" ("unversioned" for a name
                                       without one); NULL when none (gds-nvidia-fs #87) */
        ModuleOrigin origin;
} ModuleInfo;

typedef struct ModuleStack {
        ModuleInfo *modules; /* the stack members first, in nvme_stack_modules order, then
                                any other loaded module holding one of them, then the
                                loaded modules a member depends on (role SHARED) */
        size_t n_modules;
        bool hooks_read;     /* /proc/kallsyms was asked: has_gds_hooks and gds_generations
                                are facts; otherwise false/NULL meaning "not looked at" */
} ModuleStack;

/* The modules that make up the NVMe host stack, NULL-terminated: the one
 * list the guard, the daemon's uevent filter, its reload block and its
 * health check use. These are the modules of drivers/nvme/host, whose
 * build must be one (NVIDIA's or the kernel's). What they depend on and
 * share with others (drivers/nvme/common's nvme_auth and nvme_keyring,
 * which nvmet uses too; t10_pi on 6.1) is not listed: it is read from the
 * live graph (/sys/module/<m>/holders) and from a tree's modules.dep. */
extern const char *const nvme_stack_modules[];
/* Whether name (kernel spelling) is one of them. */
bool nvme_stack_module(const char *name);

/* Pure: which build m is within s (a shared in-tree module under an
 * out-of-tree member is SHARED_FROM_HOST). */
ModuleBuild module_stack_build_of(const ModuleStack *s, const ModuleInfo *m);

/* Pure: whether m, a shared module (nvme_auth, nvme_keyring: role SHARED),
 * belongs to the out-of-tree build loaded over it, so that it goes with
 * that build's stack (left behind, an earlier container's
 * nvme_auth holds mlx_compat and the next container's `openibd restart`
 * cannot remove it). Both must hold:
 *   - the kernel says it is not its own build: taint O (kernel/module/main.c
 *     taints every module built outside the tree; the host's in-tree
 *     nvme_auth never is), and
 *   - it is the build's: it holds mlx_compat or exports GDS hooks, as every
 *     module of NVIDIA's build does (FIELD-NOTES sections 2 and 8), or
 *     `recorded` (what the caller recorded at load time as inserted from the
 *     container's tree; may be NULL) names it.
 * So the host's own shared modules stay (in-tree; or out-of-tree but
 * neither NVIDIA-shaped nor loaded by us, a DKMS build of the host), and
 * mlx_compat itself (openibd's, never recorded, holds no mlx_compat) is
 * not ours to take. srcversion is not asked: equal sources give equal
 * srcversions in both builds (FIELD-NOTES section 2, seen in the stand-in),
 * so it could only say "different", which taint O already says. */
bool module_shared_of_build(const ModuleInfo *m, char *const *recorded);

typedef enum ModuleStackRead {
        MODULE_STACK_READ_DECIDE = 0,      /* holders, refcounts, taint, initstate, mlx_compat:
                                              what every decision (plan, re-check before a
                                              removal, health) needs */
        MODULE_STACK_READ_HOOKS = 1u << 0, /* and the GDS hooks, from /proc/kallsyms */
} ModuleStackRead;

/* Reads the whole stack. 0 or -errno; *ret untouched on failure.
 *
 * Without MODULE_STACK_READ_HOOKS /proc/kallsyms is not read: ~4 MB of text
 * the kernel formats one page per read(), the bulk of a stack read (seconds
 * under TCG), for an answer that only changes when a module is loaded or
 * removed. The hooks only tell NVIDIA's build from another out-of-tree one
 * (MODULE_ORIGIN_NVIDIA vs OUT_OF_TREE when the module does not hold
 * mlx_compat); in-tree vs not stays exact, since the kernel taints every
 * module built outside the tree with O (kernel/module/main.c: TAINT_OOT_MODULE
 * unless its modinfo says intree). So decisions read without the hooks, and
 * what reports the hooks (status, the swap report) reads with them. Even
 * then kallsyms is read only when some loaded module's taint has O (or could
 * not be read): the kernel's own build carries no hooks. */
int module_stack_read_with(ModuleStackRead flags, ModuleStack **ret);
/* module_stack_read_with(MODULE_STACK_READ_HOOKS, ret). */
int module_stack_read(ModuleStack **ret);
ModuleStack *module_stack_free(ModuleStack *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(ModuleStack *, module_stack_free);
const ModuleInfo *module_stack_find(const ModuleStack *s, const char *name);
bool module_stack_any_loaded(const ModuleStack *s);
/* An optional one-line attribute of /sys/module/<name>/ (through host_path):
 * *ret NULL when absent. */
int module_sysfs_attr_read(const char *name, const char *attr, char **ret);

/* References that no dependent module explains: mounts, open devices, ...
 * refcnt - n_holders, never below 0. */
unsigned module_info_refs_beyond_holders(const ModuleInfo *m);

/* Kernel module names use '_' where file names may use '-'. */
void module_name_normalize(char *name);
