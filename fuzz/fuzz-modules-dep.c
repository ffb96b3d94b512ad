/* SPDX-License-Identifier: Apache-2.0 */
/* modules.dep of a module tree (a driver container's tree is outside
 * input): parse into an index, look modules up, and name every path. */
#include <assert.h>

#include "actions/module-file.h"
#include "actions/module-tree.h"
#include "fuzz-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_text(data, size), *save = NULL;
        ModuleTree *t = calloc(1, sizeof(*t));

        if (!text || !t || !(t->dir = strdup("/lib/modules/6.1.0-fuzz"))) {
                free(text);
                module_tree_free(t);
                return 0;
        }
        if (module_tree_parse_modules_dep(t, text) >= 0) {
                for (size_t i = 0; i < t->n_entries; i++) {
                        const ModuleTreeEntry *e = &t->entries[i];

                        assert(e->name && e->path && e->depends);
                        /* Never a path that leaves the tree (a hostile container's modules.dep). */
                        assert(module_relpath_valid(e->relpath));
                        assert(e->relpath[0] != '/' && strncmp(e->relpath, "../", 3) != 0 && !strstr(e->relpath, "/../"));
                        assert(module_tree_find(t, e->name));
                }
                (void) module_tree_find(t, "nvme_core");
        }
        module_tree_free(t);
        for (char *line = strtok_r(text, "\n: ", &save); line; line = strtok_r(NULL, "\n: ", &save)) {
                char *name = NULL;

                if (module_name_from_path(line, &name) >= 0) {
                        assert(name[0]);
                        free(name);
                }
        }
        free(text);
        return 0;
}
