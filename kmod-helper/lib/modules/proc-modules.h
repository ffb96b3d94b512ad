/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* /proc/modules, one line per loaded module:
 *   nvme_core 196608 3 nvme,nvme_fabrics, Live 0xffffffffc0480000 (OE)
 * name, size, refcnt, the modules using it ("-" for none), state. */

#include <stddef.h>

#include "util/macro.h"

typedef struct ProcModule {
        char *name;
        unsigned long size;
        int refcnt;
        char **users; /* NULL-terminated; never NULL: the modules holding this one */
        char *state;  /* "Live", "Loading", "Unloading" */
} ProcModule;

typedef struct ProcModules {
        ProcModule *modules;
        size_t n_modules;
} ProcModules;

/* Pure: parses the whole text; malformed lines are skipped (a truncated
 * read must not invent modules). 0 or -ENOMEM. */
int proc_modules_parse(const char *text, ProcModules **ret);

/* Reads host_path("/proc/modules"); an absent file is an empty table (a
 * kernel without module support). 0 or -errno. */
int proc_modules_read(ProcModules **ret);

ProcModules *proc_modules_free(ProcModules *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(ProcModules *, proc_modules_free);
const ProcModule *proc_modules_find(const ProcModules *m, const char *name);
