/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The plan of a load (stack-load.h says what a load does): which file each
 * wanted module and each of its dependencies comes from (the tree asked
 * for; what the stack shares also the host's; built into the kernel), each
 * file opened once inside its tree with its modinfo read from that fd and
 * checked, the steps in load order (dependencies first), and every
 * vermagic checked against the running kernel before anything is inserted.
 * A loaded module the tree ships too is kept or taken out here
 * (load-removals.h): the plan is made against the kernel as it is. Nothing
 * is inserted here: stack-load.c carries the plan out. The plan also
 * carries what the whole load shares: its deadline and its result, in
 * which a plan that cannot be made records why. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "actions/module-elf.h"
#include "actions/module-tree.h"
#include "actions/stack-load.h"
#include "util/macro.h"

typedef struct LoadStep {
        char *name;
        const ModuleTreeEntry *entry; /* NULL when already loaded */
        const ModuleTree *tree;
        bool already_loaded;
        bool builtin;    /* in the kernel itself (modules.builtin): nothing to load */
        int fd;          /* the one fd of the file: its modinfo was read from it and
                            finit_module() gets it; -EBADF for the host's own
                            compressed files, which libkmod decompresses by path */
        ModuleMeta meta; /* name, vermagic, depends of the bytes behind fd */
} LoadStep;

typedef struct LoadPlan {
        ModuleTree *tree;  /* the tree asked for */
        ModuleTree *host;  /* the host's tree; NULL when it is the same or missing */
        bool from_container; /* the tree asked for is not the host's: stack modules
                                come from it alone */
        uint64_t deadline; /* CLOCK_MONOTONIC usec */
        unsigned timeout_sec;
        LoadStep *steps;   /* in load order */
        size_t n_steps;
        LoadResult *result;
} LoadPlan;

/* Starts the load's clock: timeout_sec (0: LOAD_TIMEOUT_SEC_DEFAULT) from now. */
void load_plan_start(LoadPlan *l, LoadResult *res, unsigned timeout_sec);
/* Opens the tree opts asks for (prepared before the unload, or now) and,
 * when it is not the host's, the host's tree to fill gaps. 0 or -errno;
 * -EIO with *ret_why (static) when the parser child could not read the
 * asked-for tree's index. */
int load_plan_open_trees(LoadPlan *l, const LoadOptions *opts, const char *release, const char **ret_why);
/* Resolves the modules opts wants (NULL: nvme) into l->steps and checks
 * every vermagic against release. 1 when the plan is ready, 0 when
 * l->result records why not, -errno. */
int load_plan_make(LoadPlan *l, const LoadOptions *opts, const char *release);
void load_plan_done(LoadPlan *l);

/* Records in res that the load failed at module (error: a positive errno)
 * and why. 0 or -ENOMEM. */
int load_fail(LoadResult *res, const char *module, int error, const char *fmt, ...) _printf_(4, 5);
/* 1 and the failure recorded when the load's deadline has passed, before
 * step ("inserting it"); 0 when not; -ENOMEM. */
int load_past_deadline(LoadPlan *l, const char *module, const char *step);
