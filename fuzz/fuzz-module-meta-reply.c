/* SPDX-License-Identifier: Apache-2.0 */
/* The parser child's answer about module images (sandbox/module-meta-job.h),
 * as its privileged parent decodes it: the bytes are whatever a taken-over
 * child chooses to write. The first byte says how many images the parent
 * asked about. Whatever the parent accepts must pass its own checks: a
 * module name, a vermagic of one printable word, bounded dependencies that
 * are module names. */
#include <stdlib.h>
#include <string.h>

#include "sandbox/module-meta-job.h"
#include "util/strv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        ModuleMeta metas[MODULE_META_BATCH_MAX] = {};
        int errors[MODULE_META_BATCH_MAX];
        const char *why = NULL;
        size_t n;

        if (size < 1)
                return 0;
        n = data[0] % MODULE_META_BATCH_MAX + 1;
        if (module_meta_reply_decode(data + 1, size - 1, n, metas, errors, &why) == 0)
                for (size_t i = 0; i < n; i++) {
                        if (errors[i] != 0) {
                                if (metas[i].name || metas[i].depends)
                                        abort(); /* a failed image carries nothing */
                                continue;
                        }
                        if (!module_name_valid(metas[i].name) || !metas[i].depends ||
                            strv_length(metas[i].depends) > MODULE_META_DEPENDS_MAX)
                                abort();
                        if (metas[i].vermagic && (strchr(metas[i].vermagic, ' ') ||
                                                  strlen(metas[i].vermagic) > MODULE_META_VERMAGIC_MAX))
                                abort();
                        STRV_FOREACH(d, metas[i].depends)
                                if (!module_name_valid(*d))
                                        abort();
                        module_meta_done(&metas[i]);
                }
        return 0;
}
