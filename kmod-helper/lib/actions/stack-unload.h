/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Removes the loaded NVMe host stack, safely:
 *   1. read the stack and build the removal plan from the live holders graph;
 *   2. refuse, touching nothing, if any namespace is in use (usage_check);
 *   3. remove module by module with libkmod, never forced, re-checking use
 *      right before each attempt (the first and every retry after
 *      EAGAIN/EBUSY: guarded-remove.h), holding our own exclusive claims on
 *      the namespaces meanwhile (claim-hold.h: nobody can mount one between
 *      a re-check and the removal; each is closed before the module its open
 *      pins, all of them before nvme_core, which is re-checked without);
 *   4. on any failure, put back what was removed (from the host tree) so the
 *      devices have a driver again;
 *   5. then the shared modules of the out-of-tree build (an earlier driver
 *      container's nvme_auth, nvme_keyring: removal-plan.h), each only when
 *      nothing holds or uses it; one that stays is named in `kept` and does
 *      not fail the unload (the stack is gone, the host's build of it loads
 *      when wanted; left loaded it would hold mlx_compat, which the next
 *      driver container's `openibd restart` must remove).
 * Every libnvme handle is closed before step 3 (libnvme 1.3 keeps namespace
 * descriptors open, which pin the modules): this layer holds none, and the
 * usage check it runs reads sysfs and /proc only.
 *
 * Something that starts using a namespace after the first check (a mount, a
 * swapon, a new holder) is found by the re-check before the next removal:
 * the unload stops, what was removed is put back, and the outcome is
 * REFUSED_IN_USE (or REFUSED_BLOCKED when the re-read module state has
 * blockers instead), with `removed` and `restored` saying what happened in
 * between. Callers treat it like any refusal (the daemon waits and retries);
 * if putting back fails the outcome is FAILED_UNRESTORED. A module found
 * already gone (ENOENT, or absent when re-read) counts as removed. */

#include <errno.h>
#include <stdbool.h>

#include "usage/usage-check.h"
#include "util/macro.h"

typedef enum UnloadOutcome {
        UNLOAD_OUTCOME_REMOVED,           /* was loaded, now gone */
        UNLOAD_OUTCOME_NOT_LOADED,        /* nothing of the stack was loaded */
        UNLOAD_OUTCOME_WOULD_REMOVE,      /* dry run: the plan could run now */
        UNLOAD_OUTCOME_REFUSED_IN_USE,    /* a namespace is in use: nothing touched */
        UNLOAD_OUTCOME_REFUSED_BLOCKED,   /* the plan has blockers (e.g. extra refs): nothing touched */
        UNLOAD_OUTCOME_FAILED_RESTORED,   /* a removal failed; what was removed is back */
        UNLOAD_OUTCOME_FAILED_UNRESTORED, /* ...and putting it back failed: no NVMe driver */
        _UNLOAD_OUTCOME_MAX,
        _UNLOAD_OUTCOME_INVALID = -EINVAL,
} UnloadOutcome;

typedef struct UnloadOptions {
        bool dry_run;
        unsigned busy_attempts; /* tries per module on EAGAIN/EBUSY; 0 means the default (5) */
        char *const *recorded;  /* NULL-terminated, may be NULL: the modules the caller recorded at
                                   load time as inserted from the build's tree (the daemon's
                                   record). With the live module's word (taint O) they mark the
                                   build's shared modules, which go with it (removal-plan.h) */
} UnloadOptions;

typedef struct UnloadResult {
        UnloadOutcome outcome;
        char **planned;         /* NULL-terminated removal order */
        char **removed;         /* NULL-terminated, in removal order */
        char **restored;        /* NULL-terminated, modules put back after a failure */
        char **plan_blockers;   /* NULL-terminated, from the removal plan */
        char *failed_module;    /* the module whose removal failed, or NULL */
        int failed_errno;       /* positive errno of that failure, 0 if none */
        UsageReport *usage;     /* the last usage check (blockers when refused) */
        char *restore_failed_module; /* when putting back failed: which module, */
        int restore_failed_errno;    /* positive errno, */
        char *restore_failed_reason; /* and one line for the operator */
        char **kept;            /* NULL-terminated: shared modules of the out-of-tree build that
                                   stayed, one line each ("nvme_auth: held by nvmet"); the
                                   stack's unload went on without them */
} UnloadResult;

const char *unload_outcome_to_string(UnloadOutcome o);
UnloadOutcome unload_outcome_from_string(const char *s);

/* 0 with *ret describing what happened (every outcome above is a result, not
 * an error); -errno only when the state could not even be read. */
int stack_unload(const UnloadOptions *opts, UnloadResult **ret);
/* The same with a usage check the caller has just made (taken, freed in
 * every case; NULL: checked here): it is the plan's check; the re-check
 * before each removal still reads the usage afresh. */
int stack_unload_checked(const UnloadOptions *opts, UsageReport *checked, UnloadResult **ret);
UnloadResult *unload_result_free(UnloadResult *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(UnloadResult *, unload_result_free);
