/* SPDX-License-Identifier: Apache-2.0 */
/* /proc/modules text: what the parser keeps must be well-formed. */
#include <assert.h>

#include "fuzz-util.h"
#include "modules/proc-modules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        ProcModules *m = NULL;
        char *text = fuzz_text(data, size);

        if (text && proc_modules_parse(text, &m) >= 0) {
                for (size_t i = 0; i < m->n_modules; i++) {
                        const ProcModule *x = &m->modules[i];

                        assert(x->name && x->name[0] && x->users && x->state);
                        assert(proc_modules_find(m, x->name));
                }
                (void) proc_modules_find(m, "nvme_core");
                proc_modules_free(m);
        }
        free(text);
        return 0;
}
