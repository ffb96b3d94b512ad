/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The daemon's only door to what the guard library (kmod-helper/lib) reads
 * and does to the kernel. The manager never calls those parts directly: it
 * calls these operations, which guard-ops-real.c implements with the library
 * and tests replace with scripted results (tests/unit/daemon/
 * test-swap-actions.c). The results are the daemon's own small types, copied
 * from the library's, so that the daemon logic and its tests run against a
 * scripted guard. (Plain facts the library owns, host paths, the kernel
 * release, the stack's module list, are used directly.) */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/macro.h"

typedef enum GuardOrigin {
        GUARD_ORIGIN_ABSENT,
        GUARD_ORIGIN_IN_TREE,
        GUARD_ORIGIN_OUT_OF_TREE,
        GUARD_ORIGIN_NVIDIA,
        _GUARD_ORIGIN_MAX,
} GuardOrigin;

typedef struct GuardModule {
        char *name;
        GuardOrigin origin;   /* ABSENT when not loaded */
        bool shared;          /* not a stack member: a module the members use and may share
                                 with others (nvme_auth, nvme_keyring, t10_pi), from the live graph */
        char *build;          /* "in-tree", "container", "shared-from-host", "absent"
                                 (module_build_to_string); NULL when not told */
        char **needs;         /* NULL-terminated: the stack members it depends on, from the
                                 host's modules.dep (nvme_tcp: nvme_fabrics, nvme_core);
                                 NULL when that is not known */
        bool gds_hooks;
        char *gds_generations; /* which hooks it exports: "v1", "v2", "v1,v2"; NULL: none */
        char *srcversion;      /* /sys/module/<name>/srcversion; NULL: absent or not exported */
} GuardModule;

typedef struct GuardStack {
        GuardModule *modules;
        size_t n_modules;
} GuardStack;

/* One reason a namespace cannot be let go, for the journal. */
typedef struct GuardBlocker {
        char *device;       /* "nvme0n1p1", or NULL for a module-level blocker */
        char *kind;         /* "mounted", "swap", "holder", "open", "kernel-claim", "module" */
        char *where;        /* mount point, swap path, holder name, command */
        pid_t pid;
        char *description;  /* one line an operator can act on */
        bool other_namespace; /* "mounted" only in another mount namespace than the host's */
} GuardBlocker;

typedef struct GuardBlockers {
        GuardBlocker *items;
        size_t n;
} GuardBlockers;

typedef enum GuardUnloadOutcome {
        GUARD_UNLOAD_REMOVED,
        GUARD_UNLOAD_NOT_LOADED,
        GUARD_UNLOAD_REFUSED,             /* in use or plan blocked: nothing touched */
        GUARD_UNLOAD_FAILED_RESTORED,
        GUARD_UNLOAD_FAILED_UNRESTORED,
        GUARD_UNLOAD_WOULD_REMOVE,        /* observe: nothing in use, the plan could run now;
                                             nothing touched (`removed`: the plan) */
        _GUARD_UNLOAD_MAX,
} GuardUnloadOutcome;

typedef struct GuardUnloadResult {
        GuardUnloadOutcome outcome;
        char **removed;          /* NULL-terminated, may be NULL */
        GuardBlockers blockers;
        char *failed_module;
        int failed_errno;        /* positive */
        char **kept;             /* NULL-terminated, may be NULL: shared modules of the out-of-tree
                                    build that stayed, one line each ("nvme_auth: held by nvmet") */
} GuardUnloadResult;

typedef struct GuardLoadResult {
        char **loaded;           /* NULL-terminated, may be NULL: every module of the load,
                                    dependencies first (the three lists below together) */
        char **from_tree;        /* inserted from the tree asked for (the container's) */
        char **from_host;        /* inserted from the host's tree (t10_pi & co.) */
        char **already;          /* loaded before the call (mlx_compat by openibd) */
        char **replaced;         /* shared modules (nvme_auth) taken out, free, for the tree's own */
        char **kept;             /* one line each: a shared module the tree ships too, kept
                                    because something holds it ("... held by nvmet") */
        char *failed_module;     /* NULL on success */
        int failed_errno;
        char *failed_reason;
        bool would;              /* observe: nothing was loaded; `loaded` is what would be */
} GuardLoadResult;

typedef struct GuardNamespace {
        char *name;     /* nvme0n1 */
        char *serial;
        unsigned nsid;
} GuardNamespace;

typedef struct GuardNamespaces {
        GuardNamespace *items;
        size_t n;
} GuardNamespaces;

/* What the pin holds (kmod-helper/lib/usage/usage-pin.h): the controllers
 * of every namespace in use kept open, so that nobody removes the modules
 * under it. */
typedef struct GuardPin {
        char **modules;  /* NULL-terminated, may be empty: the modules pinned ("nvme") */
        char **reasons;  /* one per usage: "nvme pinned: /dev/nvme1n1 mounted at /data (ext4)" */
        char **problems; /* "could not pin nvme1: ..." */
        char **devices;  /* the devices in use ("nvme1n1"), one per reason */
        size_t n_opens;  /* of those, plain opens by a process: no event tells when they end */
} GuardPin;
/* GDS hook generations: what nvme exports and what the loaded
 * nvidia-fs asks for (gds-nvidia-fs #87). */
typedef enum GuardGdsMatch {
        GUARD_GDS_UNKNOWN,     /* nvidia_fs not loaded, or its file not found/readable */
        GUARD_GDS_SAME,
        GUARD_GDS_DIFFERENT,   /* compatibility mode: warn with the remedy */
        GUARD_GDS_NO_HOOKS,    /* nvme exports none */
} GuardGdsMatch;

typedef struct GuardGds {
        bool nvfs_loaded;
        char *exported;        /* nvme's generations ("v1,v2"); NULL: none */
        char *wanted;          /* nvidia-fs's ("v1"); NULL: unknown */
        GuardGdsMatch match;
        char *description;     /* one line, with the remedy when they differ */
} GuardGds;

GuardGds *guard_gds_free(GuardGds *g);
DEFINE_TRIVIAL_CLEANUP_FUNC(GuardGds *, guard_gds_free);

/* One NVMe over Fabrics connection, as the daemon shows it: the
 * library's FabricsController / FabricsReconnectEntry cut to what the
 * journal, the state file and the status document say. Never a secret. */
typedef enum GuardFabricsOutcome {
        GUARD_FABRICS_LIVE,               /* live now, nothing done to it (yet) */
        GUARD_FABRICS_PENDING,            /* recorded before an unload that drops it;
                                             not reconnected yet */
        GUARD_FABRICS_RECONNECTED,        /* connected again by us, live, namespaces back */
        GUARD_FABRICS_ALREADY_LIVE,       /* live again without us */
        GUARD_FABRICS_FAILED,             /* the kernel refused it or it never went live */
        GUARD_FABRICS_NAMESPACES_MISSING, /* live, some recorded namespace not back */
        GUARD_FABRICS_LOST,               /* given up: not back within its ctrl_loss_tmo */
        _GUARD_FABRICS_OUTCOME_MAX,
        _GUARD_FABRICS_OUTCOME_INVALID = -EINVAL,
} GuardFabricsOutcome;

typedef struct GuardFabricsConnection {
        char *description;   /* "nvme1: tcp 127.0.0.1:4420 nqn.2026-12.test:sub" */
        char *controller;    /* its name when recorded ("nvme1") */
        char *new_controller;/* after a reconnect ("nvme3"); NULL: not back */
        char *transport;     /* "tcp", "rdma", "fc" */
        char *address;       /* "127.0.0.1:4420" */
        char *subsysnqn;
        GuardFabricsOutcome outcome;
        int error;           /* positive errno of a failure; 0 */
        char *error_message; /* the kernel's answer, one line; NULL: none */
        char *error_kind;    /* "refused", "no-answer", "auth", ... (the connect unit's words); NULL */
        char *traddr;        /* the identity the connect unit's answers are matched by */
        char *trsvcid;
        uint64_t next_try_usec;   /* pending: CLOCK_REALTIME of the next try; 0: none planned */
        uint64_t give_up_at_usec; /* pending: CLOCK_REALTIME past which it is lost; 0: never */
} GuardFabricsConnection;

typedef struct GuardFabrics {
        GuardFabricsConnection *items;
        size_t n;
        char **transports;   /* NULL-terminated, may be NULL: the transport modules the
                                connections need ("nvme_tcp") */
} GuardFabrics;

GuardFabrics *guard_fabrics_free(GuardFabrics *f);
DEFINE_TRIVIAL_CLEANUP_FUNC(GuardFabrics *, guard_fabrics_free);
const char *guard_fabrics_outcome_to_string(GuardFabricsOutcome o);
GuardFabricsOutcome guard_fabrics_outcome_from_string(const char *s);
/* Appends a zeroed connection; NULL without memory. */
GuardFabricsConnection *guard_fabrics_add(GuardFabrics *f);
/* Whether any connection is recorded and not back (pending, failed, missing namespaces). */
bool guard_fabrics_any_unresolved(const GuardFabrics *f);

/* Each returns 0 with *ret, or -errno when it could not even try. Every
 * outcome of an attempt (refused, failed and restored ...) is in *ret. */
typedef struct GuardOps {
        /* recorded (may be NULL): the modules the record says the last load
         * inserted from the container's tree (StateFile.build_modules). Those
         * of them that are shared (nvme_auth, nvme_keyring) and out-of-tree by
         * the live module's taint go with the build (removal-plan.h). */
        int (*unload)(void *userdata, char *const *recorded, GuardUnloadResult **ret);
        /* modules NULL: the library's default (nvme, and through it nvme_core).
         * root_fd >= 0: module_tree is a path inside that directory (the driver
         * container's root, opened through its pidfd: lib/modules/<release>),
         * resolved with it as "/"; -1: module_tree is a host path.
         * timeout_sec: the load's deadline (LoadTimeoutSec=); past it the load
         * stops with ETIMEDOUT and what it inserted is removed again. */
        int (*load_from)(void *userdata, const char *module_tree, int root_fd, char *const *modules,
                         unsigned timeout_sec, GuardLoadResult **ret);
        int (*restore)(void *userdata, char *const *modules, GuardLoadResult **ret);
        /* The stack for a decision: holders, refcounts, origins (in-tree or
         * not, exact); gds_hooks false and gds_generations NULL, not looked
         * at (no /proc/kallsyms: module-stack.h, MODULE_STACK_READ_DECIDE). */
        int (*read_stack)(void *userdata, GuardStack **ret);
        /* The same with the GDS hooks, for what reports them (the swap
         * report, the status document). May be NULL: read_stack then
         * (guard_read_stack_hooks()). */
        int (*read_stack_hooks)(void *userdata, GuardStack **ret);
        int (*check_usage)(void *userdata, GuardBlockers **ret);
        int (*scan_namespaces)(void *userdata, GuardNamespaces **ret);
        /* NVMe controllers with no driver bound exist (nvme-unbound.h); may be
         * NULL (tests), then taken as none. */
        int (*nvme_driverless)(void *userdata, bool *ret);
        /* The pin (both NULL where a test does not pin): match it to a fresh
         * usage check, and let go of it. The real unload refuses while a
         * namespace is in use with the pin still held, and lets go of it
         * itself once all are free, before removing anything: never held
         * across our own unload, never let go while in use. */
        int (*pin_refresh)(void *userdata, GuardPin **ret);
        void (*pin_release)(void *userdata);
        /* trees: more module trees (host paths) to find nvidia_fs in; NULL op: not checked. */
        int (*check_gds)(void *userdata, char *const *trees, GuardGds **ret);
        /* Read-only rehearsals of unload and load_from for observe (may
         * be NULL, then guard-ops-observe.c rehearses with the reads above):
         * the unload's own plan and usage check, outcome WOULD_REMOVE when it
         * would go ahead; the load's modules looked up in the tree, `would` set. */
        int (*unload_plan)(void *userdata, char *const *recorded, GuardUnloadResult **ret);
        int (*load_plan)(void *userdata, const char *module_tree, int root_fd, char *const *modules,
                         GuardLoadResult **ret);
        /* NVMe over Fabrics (may be NULL: no fabrics handling): the
         * connections live now, from public sysfs (never a secret). Their
         * capture before an unload and their connect after a load are the
         * work of nvme-swapguard-fabrics.service (watch/fabrics-watch.h). */
        int (*fabrics_read)(void *userdata, GuardFabrics **ret);
        /* How many NVMe PCI functions the node has, bound to a driver or not
         * (class 0x010802); -ENOENT when the PCI bus cannot be seen (a fake
         * root, a container): then nobody can tell a fabrics-only node. */
        int (*nvme_pci_functions)(void *userdata, unsigned *ret);
        /* These ops change nothing on the node (guard-ops-observe.c): the
         * manager then keeps /run/modprobe.d as it is. */
        bool observe;
        void *userdata;
} GuardOps;

/* The implementation with the guard library (guard-ops-real.c). */
extern const GuardOps guard_ops_real;

const char *guard_origin_to_string(GuardOrigin o);
GuardOrigin guard_origin_from_string(const char *s);

/* ops->read_stack_hooks, or ops->read_stack where there is none. */
int guard_read_stack_hooks(const GuardOps *ops, GuardStack **ret);
GuardStack *guard_stack_free(GuardStack *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(GuardStack *, guard_stack_free);
const GuardModule *guard_stack_find(const GuardStack *s, const char *name);
bool guard_stack_any_loaded(const GuardStack *s);
/* nvme (or nvme_core) loaded and not the in-tree build. */
bool guard_stack_replacement_loaded(const GuardStack *s);
/* NULL-terminated names of the loaded modules, or NULL when none (-ENOMEM). */
int guard_stack_loaded_names(const GuardStack *s, char ***ret);

void guard_blockers_clear(GuardBlockers *b);
GuardBlockers *guard_blockers_free(GuardBlockers *b);
DEFINE_TRIVIAL_CLEANUP_FUNC(GuardBlockers *, guard_blockers_free);
/* All descriptions joined with "; " ("" when none). */
char *guard_blockers_join(const GuardBlockers *b);
GuardUnloadResult *guard_unload_result_free(GuardUnloadResult *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(GuardUnloadResult *, guard_unload_result_free);
GuardLoadResult *guard_load_result_free(GuardLoadResult *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(GuardLoadResult *, guard_load_result_free);
GuardNamespaces *guard_namespaces_free(GuardNamespaces *n);
DEFINE_TRIVIAL_CLEANUP_FUNC(GuardNamespaces *, guard_namespaces_free);
GuardPin *guard_pin_free(GuardPin *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(GuardPin *, guard_pin_free);
/* Whether anything is pinned. */
bool guard_pin_held(const GuardPin *p);
/* The namespaces of `before` (serial + nsid) missing from `now`, NULL-terminated
 * "serial/nsid (name)" lines; NULL when all are back. -ENOMEM on failure. */
int guard_namespaces_missing(const GuardNamespaces *before, const GuardNamespaces *now, char ***ret);
