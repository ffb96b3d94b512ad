/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Loads the NVMe host stack from a module tree: NVIDIA's build from the
 * driver container's root (/proc/<pid>/root/lib/modules/<release>, RPM
 * extra/ or DKMS updates/ layout), or the in-tree build from the host's
 * /lib/modules/<release> (restore). Dependencies outside the NVMe stack
 * missing from the given tree (t10_pi, crc64_rocksoft, nvme_auth,
 * nvme_keyring, ...) come from the host tree, or are built into the kernel
 * (the host's modules.builtin); the stack's own modules (nvme_stack_modules)
 * come from the given tree only. A loaded shared module that the given tree
 * ships too is replaced by it when nothing holds it, and kept (said in
 * `kept`) when something does (load-removals.h).
 * Each file is opened once, inside its tree (module-file.h), and its name,
 * vermagic and depends are read from that fd, which finit_module() gets. A module whose
 * vermagic does not match the running kernel is refused before any load.
 *
 * Order: the wanted modules and their dependencies are resolved first (the
 * given tree, then the host's), every vermagic is checked, then modules are
 * inserted dependencies first. A module already present (/sys/module/<m>,
 * read through host-root) is skipped. Loading stops at the first failed
 * insert; with rollback_on_failure the modules this call inserted are then
 * removed again, newest first, so that a restore that follows starts from
 * the state before the call (a half-loaded NVIDIA stack would make the
 * in-tree nvme fail against NVIDIA's nvme_core). Each rollback removal is
 * guarded like an unload's (a usage check before every attempt): it stops
 * at a namespace in use (rollback_stopped says which). Nothing is ever
 * forced.
 * The resolving, reading and checking before any insert make the load's
 * plan (load-plan.h, load-plan.c); stack-load.c carries it out. */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/macro.h"

/* The whole load (resolving, reading, inserting) must end within this: a
 * hostile or broken tree must not hold the node without a driver. It is
 * checked before every step; each step is bounded by itself (O_NONBLOCK
 * opens, regular files only, size caps, no decompression of a container's
 * files), except the kernel's own module init, which no caller can
 * interrupt. Below the daemon's WatchdogSec=2min. */
#define LOAD_TIMEOUT_SEC_DEFAULT 60u

typedef struct LoadOptions {
        const char *module_tree; /* a host path (it goes through host_path(), like
                                    /proc/<pid>/root/lib/modules/<release>), and the
                                    root of its own resolution; with in_root, a
                                    path inside root_fd (lib/modules/<release>);
                                    NULL: the host's /lib/modules/<release> */
        bool in_root;            /* module_tree is inside root_fd (a driver container's
                                    root, opened through its pidfd): its absolute
                                    symlinks mean the container's own files */
        int root_fd;
        unsigned timeout_sec;    /* 0: LOAD_TIMEOUT_SEC_DEFAULT */
        char **modules;          /* NULL-terminated list of stack modules wanted;
                                    NULL: nvme (and through it nvme_core) */
        bool rollback_on_failure; /* see above; a restore leaves it off: some
                                     driver is better than none */
} LoadOptions;

typedef struct LoadedModule {
        char *name;
        char *path;         /* the .ko loaded, as seen from the host */
        bool already_loaded;
        bool from_host;     /* inserted from the host's tree (a dependency outside the
                               stack: t10_pi, nvme_auth), not from the tree asked for */
        bool builtin;       /* built into the kernel (modules.builtin): already_loaded too */
} LoadedModule;

typedef struct LoadResult {
        LoadedModule *modules; /* in load order, dependencies first */
        size_t n_modules;
        char *failed_module;   /* NULL on success */
        int failed_errno;      /* positive errno: ENOEXEC for a vermagic mismatch or
                                  not a module, EKEYREJECTED for a rejected
                                  signature, ENOENT when no tree has the module,
                                  ENOPKG when a container's tree has no build of a
                                  stack module (nothing is then loaded from the
                                  host for it), EBADMSG when the file's modinfo
                                  names another module, EXDEV when it resolves
                                  outside its tree, EBADFD not a regular file,
                                  EFBIG too large, EMEDIUMTYPE compressed (from a
                                  container), ETIMEDOUT past the deadline, ... */
        char *failed_reason;   /* one line for the operator */
        char **rolled_back;    /* NULL-terminated: modules this call inserted and
                                  removed again after the failure */
        char *rollback_stopped; /* why the rollback stopped before the end: "not removing
                                   nvme: nvme1n1 is mounted on /data (xfs)"; NULL if it did not */
        char **replaced;       /* NULL-terminated or NULL: shared modules (not stack
                                  members) that were loaded, free, and taken out so
                                  that the tree's own build of them goes in */
        char **kept;           /* NULL-terminated or NULL, one line each: a shared
                                  module the tree ships too, left loaded because
                                  something holds it ("nvme_auth: ... held by nvmet") */
        char *release;         /* the running kernel's release the tree was checked against */
        char *tree;            /* the tree loaded from, as opened */
} LoadResult;

/* 0 with *ret (check failed_module); -errno only when the request itself was
 * impossible (no such tree, no memory; -EPERM under a fake root without the
 * test fake kernel, see host/kernel-target.h). */
int stack_load(const LoadOptions *opts, LoadResult **ret);
bool load_result_ok(const LoadResult *r);

LoadResult *load_result_free(LoadResult *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(LoadResult *, load_result_free);
