/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The daemon's only door to what the guard library (kmod-helper/lib) reads
 * and does to the kernel. The manager never calls those parts directly: it
 * calls these operations, which node-ops-real.c implements with the library
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

typedef enum NodeOrigin {
        NODE_ORIGIN_ABSENT,
        NODE_ORIGIN_IN_TREE,
        NODE_ORIGIN_OUT_OF_TREE,
        NODE_ORIGIN_NVIDIA,
        _GUARD_ORIGIN_MAX,
} NodeOrigin;

typedef struct NodeModule {
        char *name;
        NodeOrigin origin;   /* ABSENT when not loaded */
        bool shared;          /* not a stack member: a module the members use and may share
                                 with others (nvme_auth, nvme_keyring, t10_pi), from the live graph */
        char *build;          /* "in-tree", "container", "shared-from-host", "absent"
                                 (module_build_to_string); NULL when not told */
        char **needs;         /* NULL-terminated: the stack members it depends on, from the
                                 host's modules.dep (nvme_tcp: nvme_fabrics, nvme_core);
                                 NULL when that is not known */
        bool hooks_possible;  /* its taint has O or could not be read: only such a module can
                                 carry the GDS hooks (module-stack.c, read_gds_hooks()) */
        bool gds_hooks;
        char *gds_generations; /* which hooks it exports: "v1", "v2", "v1,v2"; NULL: none */
        char *srcversion;      /* /sys/module/<name>/srcversion; NULL: absent or not exported */
} NodeModule;

typedef struct NodeStack {
        NodeModule *modules;
        size_t n_modules;
} NodeStack;

/* One reason a namespace cannot be let go, for the journal. */
typedef struct NodeBlocker {
        char *device;       /* "nvme0n1p1", or NULL for a module-level blocker */
        char *kind;         /* "mounted", "swap", "holder", "open", "kernel-claim", "module" */
        char *where;        /* mount point, swap path, holder name, command */
        pid_t pid;
        char *description;  /* one line an operator can act on */
        bool other_namespace; /* "mounted" only in another mount namespace than the host's */
} NodeBlocker;

typedef struct NodeBlockers {
        NodeBlocker *items;
        size_t n;
} NodeBlockers;

typedef enum NodeUnloadOutcome {
        NODE_UNLOAD_REMOVED,
        NODE_UNLOAD_NOT_LOADED,
        NODE_UNLOAD_REFUSED,             /* in use or plan blocked: nothing touched */
        NODE_UNLOAD_FAILED_RESTORED,
        NODE_UNLOAD_FAILED_UNRESTORED,
        NODE_UNLOAD_WOULD_REMOVE,        /* observe: nothing in use, the plan could run now;
                                             nothing touched (`removed`: the plan) */
        _GUARD_UNLOAD_MAX,
} NodeUnloadOutcome;

typedef struct NodeUnloadResult {
        NodeUnloadOutcome outcome;
        char **removed;          /* NULL-terminated, may be NULL */
        NodeBlockers blockers;
        char *failed_module;
        int failed_errno;        /* positive */
        char **kept;             /* NULL-terminated, may be NULL: shared modules of the out-of-tree
                                    build that stayed, one line each ("nvme_auth: held by nvmet") */
} NodeUnloadResult;

typedef struct NodeLoadResult {
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
} NodeLoadResult;

/* What came from the tree asked for. An ops table that does not sort what
 * it loaded (tests' fakes): everything it names. */
static inline char **node_load_result_from_tree(const NodeLoadResult *l) {
        return l->from_tree || l->from_host || l->already ? l->from_tree : l->loaded;
}

typedef struct NodeNamespace {
        char *name;     /* nvme0n1 */
        char *serial;
        unsigned nsid;
} NodeNamespace;

typedef struct NodeNamespaces {
        NodeNamespace *items;
        size_t n;
} NodeNamespaces;

/* What the pin holds (kmod-helper/lib/usage/usage-pin.h): the controllers
 * of every namespace in use kept open, so that nobody removes the modules
 * under it. */
typedef struct NodePin {
        char **modules;  /* NULL-terminated, may be empty: the modules pinned ("nvme") */
        char **reasons;  /* one per usage: "nvme pinned: /dev/nvme1n1 mounted at /data (ext4)" */
        char **problems; /* "could not pin nvme1: ..." */
        char **devices;  /* the devices in use ("nvme1n1"), one per reason */
        size_t n_opens;  /* of those, plain opens by a process: no event tells when they end */
} NodePin;
/* GDS hook generations: what nvme exports and what the loaded
 * nvidia-fs asks for (gds-nvidia-fs #87). */
typedef enum NodeGdsMatch {
        NODE_GDS_UNKNOWN,     /* nvidia_fs not loaded, or its file not found/readable */
        NODE_GDS_SAME,
        NODE_GDS_DIFFERENT,   /* compatibility mode: warn with the remedy */
        NODE_GDS_NO_HOOKS,    /* nvme exports none */
} NodeGdsMatch;

typedef struct NodeGds {
        bool nvfs_loaded;
        char *exported;        /* nvme's generations ("v1,v2"); NULL: none */
        char *wanted;          /* nvidia-fs's ("v1"); NULL: unknown */
        NodeGdsMatch match;
        char *description;     /* one line, with the remedy when they differ */
} NodeGds;

NodeGds *node_gds_free(NodeGds *g);
DEFINE_TRIVIAL_CLEANUP_FUNC(NodeGds *, node_gds_free);

/* One NVMe over Fabrics connection, as the daemon shows it: the
 * library's FabricsController / FabricsReconnectEntry cut to what the
 * journal, the state file and the status document say. Never a secret. */
typedef enum NodeFabricsOutcome {
        NODE_FABRICS_LIVE,               /* live now, nothing done to it (yet) */
        NODE_FABRICS_PENDING,            /* recorded before an unload that drops it;
                                             not reconnected yet */
        NODE_FABRICS_RECONNECTED,        /* connected again by us, live, namespaces back */
        NODE_FABRICS_ALREADY_LIVE,       /* live again without us */
        NODE_FABRICS_FAILED,             /* the kernel refused it or it never went live */
        NODE_FABRICS_NAMESPACES_MISSING, /* live, some recorded namespace not back */
        NODE_FABRICS_LOST,               /* given up: not back within its ctrl_loss_tmo */
        _GUARD_FABRICS_OUTCOME_MAX,
        _GUARD_FABRICS_OUTCOME_INVALID = -EINVAL,
} NodeFabricsOutcome;

typedef struct NodeFabricsConnection {
        char *description;   /* "nvme1: tcp 127.0.0.1:4420 nqn.2026-12.test:sub" */
        char *controller;    /* its name when recorded ("nvme1") */
        char *new_controller;/* after a reconnect ("nvme3"); NULL: not back */
        char *transport;     /* "tcp", "rdma", "fc" */
        char *address;       /* "127.0.0.1:4420" */
        char *subsysnqn;
        NodeFabricsOutcome outcome;
        int error;           /* positive errno of a failure; 0 */
        char *error_message; /* the kernel's answer, one line; NULL: none */
        char *error_kind;    /* "refused", "no-answer", "auth", ... (the connect unit's words); NULL */
        char *traddr;        /* the identity the connect unit's answers are matched by */
        char *trsvcid;
        uint64_t next_try_usec;   /* pending: CLOCK_REALTIME of the next try; 0: none planned */
        uint64_t give_up_at_usec; /* pending: CLOCK_REALTIME past which it is lost; 0: never */
} NodeFabricsConnection;

typedef struct NodeFabrics {
        NodeFabricsConnection *items;
        size_t n;
        char **transports;   /* NULL-terminated, may be NULL: the transport modules the
                                connections need ("nvme_tcp") */
} NodeFabrics;

NodeFabrics *node_fabrics_free(NodeFabrics *f);
DEFINE_TRIVIAL_CLEANUP_FUNC(NodeFabrics *, node_fabrics_free);
const char *node_fabrics_outcome_to_string(NodeFabricsOutcome o);
NodeFabricsOutcome node_fabrics_outcome_from_string(const char *s);
/* Appends a zeroed connection; NULL without memory. */
NodeFabricsConnection *node_fabrics_add(NodeFabrics *f);
/* Whether any connection is recorded and not back (pending, failed, missing namespaces). */
bool node_fabrics_any_unresolved(const NodeFabrics *f);

/* Each returns 0 with *ret, or -errno when it could not even try. Every
 * outcome of an attempt (refused, failed and restored ...) is in *ret. */
typedef struct NodeOps {
        /* recorded (may be NULL): the modules the record says the last load
         * inserted from the container's tree (StateFile.build_modules). Those
         * of them that are shared (nvme_auth, nvme_keyring) and out-of-tree by
         * the live module's taint go with the build (removal-plan.h). */
        int (*unload)(void *userdata, char *const *recorded, NodeUnloadResult **ret);
        /* modules NULL: the library's default (nvme, and through it nvme_core).
         * root_fd >= 0: module_tree is a path inside that directory (the driver
         * container's root, opened through its pidfd: lib/modules/<release>),
         * resolved with it as "/"; -1: module_tree is a host path.
         * timeout_sec: the load's deadline (LoadTimeoutSec=); past it the load
         * stops with ETIMEDOUT and what it inserted is removed again. */
        int (*load_from)(void *userdata, const char *module_tree, int root_fd, char *const *modules,
                         unsigned timeout_sec, NodeLoadResult **ret);
        int (*restore)(void *userdata, char *const *modules, NodeLoadResult **ret);
        /* Work done before the node goes without a driver, so that the window
         * holds the swap alone (may be NULL: nothing prepared; changes nothing
         * on the node either way): the host's module tree parsed; with
         * module_tree (the ready file's moment: the container's tree is
         * complete), the container's load prepared as load_from() with the
         * same arguments would read it. load_from() takes what is still the
         * same and checks everything (actions/load-prepare.h). */
        int (*prepare_load)(void *userdata, const char *module_tree, int root_fd, char *const *modules);
        /* The stack for a decision: holders, refcounts, origins (in-tree or
         * not, exact); gds_hooks false and gds_generations NULL, not looked
         * at (no /proc/kallsyms: module-stack.h, MODULE_STACK_READ_DECIDE). */
        int (*read_stack)(void *userdata, NodeStack **ret);
        /* The same with the GDS hooks, for what reports them (the swap
         * report, the status document). May be NULL: read_stack then
         * (node_read_stack_hooks()). */
        int (*read_stack_hooks)(void *userdata, NodeStack **ret);
        /* The GDS hooks added to a stack read_stack() gave (may be NULL):
         * one /proc/kallsyms read, only when a module could carry them
         * (hooks_possible); a module found with them is NVIDIA's build, as
         * read_stack_hooks() would have said. The step's snapshot uses it
         * to tell the hooks without reading the stack twice
         * (swap/swap-snapshot.c). */
        int (*read_hooks)(void *userdata, NodeStack *stack);
        int (*check_usage)(void *userdata, NodeBlockers **ret);
        int (*scan_namespaces)(void *userdata, NodeNamespaces **ret);
        /* NVMe controllers with no driver bound exist (nvme-unbound.h); may be
         * NULL (tests), then taken as none. */
        int (*nvme_driverless)(void *userdata, bool *ret);
        /* The pin (both NULL where a test does not pin): match it to a fresh
         * usage check, and let go of it. The real unload refuses while a
         * namespace is in use with the pin still held, and lets go of it
         * itself once all are free, before removing anything: never held
         * across our own unload, never let go while in use. */
        int (*pin_refresh)(void *userdata, NodePin **ret);
        void (*pin_release)(void *userdata);
        /* trees: more module trees (host paths) to find nvidia_fs in; NULL op:
         * not checked. nvme: the module from a stack read with its hooks (its
         * gds_generations are what kallsyms says: not read again), or NULL
         * (kallsyms is read). */
        int (*check_gds)(void *userdata, char *const *trees, const NodeModule *nvme, NodeGds **ret);
        /* Read-only rehearsals of unload and load_from for observe (may
         * be NULL, then node-ops-observe.c rehearses with the reads above):
         * the unload's own plan and usage check, outcome WOULD_REMOVE when it
         * would go ahead; the load's modules looked up in the tree, `would` set. */
        int (*unload_plan)(void *userdata, char *const *recorded, NodeUnloadResult **ret);
        int (*load_plan)(void *userdata, const char *module_tree, int root_fd, char *const *modules,
                         NodeLoadResult **ret);
        /* NVMe over Fabrics (may be NULL: no fabrics handling): the
         * connections live now, from public sysfs (never a secret). Their
         * capture before an unload and their connect after a load are the
         * work of nvme-swapguard-fabrics.service (watch/fabrics-watch.h). */
        int (*fabrics_read)(void *userdata, NodeFabrics **ret);
        /* How many NVMe PCI functions the node has, bound to a driver or not
         * (class 0x010802); -ENOENT when the PCI bus cannot be seen (a fake
         * root, a container): then nobody can tell a fabrics-only node. */
        int (*nvme_pci_functions)(void *userdata, unsigned *ret);
        /* These ops change nothing on the node (node-ops-observe.c): the
         * manager then keeps the reload block as it is. */
        bool observe;
        void *userdata;
} NodeOps;

/* The implementation with the guard library (node-ops-real.c). */
extern const NodeOps node_ops_real;

const char *node_origin_to_string(NodeOrigin o);
NodeOrigin node_origin_from_string(const char *s);

/* ops->read_stack_hooks, or ops->read_stack where there is none. */
int node_read_stack_hooks(const NodeOps *ops, NodeStack **ret);
NodeStack *node_stack_free(NodeStack *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(NodeStack *, node_stack_free);
const NodeModule *node_stack_find(const NodeStack *s, const char *name);
bool node_stack_any_loaded(const NodeStack *s);
/* nvme (or nvme_core) loaded and not the in-tree build. */
bool node_stack_replacement_loaded(const NodeStack *s);
/* NULL-terminated names of the loaded modules, or NULL when none (-ENOMEM). */
int node_stack_loaded_names(const NodeStack *s, char ***ret);

void node_blockers_clear(NodeBlockers *b);
NodeBlockers *node_blockers_free(NodeBlockers *b);
DEFINE_TRIVIAL_CLEANUP_FUNC(NodeBlockers *, node_blockers_free);
/* All descriptions joined with "; " ("" when none). */
char *node_blockers_join(const NodeBlockers *b);
NodeUnloadResult *node_unload_result_free(NodeUnloadResult *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(NodeUnloadResult *, node_unload_result_free);
NodeLoadResult *node_load_result_free(NodeLoadResult *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(NodeLoadResult *, node_load_result_free);
NodeNamespaces *node_namespaces_free(NodeNamespaces *n);
DEFINE_TRIVIAL_CLEANUP_FUNC(NodeNamespaces *, node_namespaces_free);
NodePin *node_pin_free(NodePin *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(NodePin *, node_pin_free);
/* Whether anything is pinned. */
bool node_pin_held(const NodePin *p);
/* The namespaces of `before` (serial + nsid) missing from `now`, NULL-terminated
 * "serial/nsid (name)" lines; NULL when all are back. -ENOMEM on failure. */
int node_namespaces_missing(const NodeNamespaces *before, const NodeNamespaces *now, char ***ret);
