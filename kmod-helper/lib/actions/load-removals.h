/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The removals a load makes (stack-load.h): a shared module the asked-for
 * build replaces, taken out before its own build goes in; and the rollback
 * of a failed load. Never forced; each removal is checked right before
 * every attempt (guarded-remove.h). */

#include <stdbool.h>

#include "actions/stack-load.h"

/* A loaded module that is not a stack member (nvme_auth, nvme_keyring: the
 * stack shares them with nvmet and others), which the tree being loaded
 * ships too. It is taken out only when nothing holds it (no holder, refcnt
 * 0): the container's build then replaces it. replace_in_tree: the load is
 * from a driver container's tree (any loaded build is replaced); false: the
 * host's (only an out-of-tree build, left by an earlier swap, is).
 * 1 removed, 0 kept with *ret_why (malloc'd, "held by nvmet"; NULL when the
 * loaded build is already the right kind), -errno. */
int load_shared_release(const char *name, bool from_container, char **ret_why);

/* Removes the shared module `name` if nothing holds or uses it, guarded
 * (the check above before every attempt, a few tries while the last
 * reference of a module just removed goes). Also the unload's, for the
 * shared modules of the build it takes out (removal-plan.h). 1 removed
 * (or found gone), 0 kept with *ret_why (malloc'd: "held by nvmet",
 * "the kernel refused to remove it: ..."), -errno. */
int shared_module_remove(const char *name, char **ret_why);

/* Undo this load's inserts, newest first, each removal guarded by a fresh
 * usage check; best effort, each one recorded in res->rolled_back, stopping
 * at the first namespace found in use (res->rollback_stopped). 0 or -ENOMEM. */
int load_roll_back(LoadResult *res, unsigned attempts);
