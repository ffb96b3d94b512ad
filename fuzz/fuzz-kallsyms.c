/* SPDX-License-Identifier: Apache-2.0 */
/* /proc/kallsyms: the GDS hook detection, whole text and line by line. */
#include <assert.h>

#include "fuzz-util.h"
#include "modules/kallsyms-hooks.h"
#include "util/strv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_text(data, size), **mods = NULL, *save = NULL;

        if (!text)
                return 0;
        if (kallsyms_gds_modules_parse(text, &mods) >= 0) {
                for (char **i = mods; *i; i++)
                        assert((*i)[0]);
                strv_free(mods);
        }
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *module = NULL;

                if (kallsyms_line_gds_module(line, &module) > 0) {
                        assert(module && module[0]);
                        free(module);
                }
        }
        free(text);
        return 0;
}
