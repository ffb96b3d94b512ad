/* SPDX-License-Identifier: Apache-2.0 */
/* The parser child's answer about a driver container's module index
 * (sandbox/modules-dep-job.h), as its privileged parent decodes it: the
 * bytes are whatever a taken-over child chooses to write. Whatever the
 * parent accepts must pass its own checks: relative paths without "." or
 * "..", naming a module file whose name is valid; dependencies and built-in
 * modules that are module names; every bound kept. */
#include <stdlib.h>
#include <string.h>

#include "actions/module-elf.h"
#include "actions/module-file.h"
#include "sandbox/modules-dep-job.h"
#include "util/strv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        ModuleIndex *x = NULL;
        const char *why = NULL;

        if (module_index_reply_decode(data, size, &x, &why) != 0)
                return 0;
        if (x->n_entries > MODULE_INDEX_ENTRIES_MAX || strv_length(x->builtin) > MODULE_INDEX_BUILTIN_MAX)
                abort();
        for (size_t i = 0; i < x->n_entries; i++) {
                const ModuleIndexEntry *e = &x->entries[i];

                if (!module_relpath_valid(e->relpath) || e->relpath[0] == '/' ||
                    !module_name_valid(e->name) || !e->depends)
                        abort();
                STRV_FOREACH(d, e->depends)
                        if (!module_name_valid(*d))
                                abort();
        }
        STRV_FOREACH(b, x->builtin)
                if (!module_name_valid(*b))
                        abort();
        module_index_free(x);
        return 0;
}
