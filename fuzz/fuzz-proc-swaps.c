/* SPDX-License-Identifier: Apache-2.0 */
/* /proc/swaps: parse (with its \040 unescaping), then match the entries
 * against a small NVMe node as the usage check does. */
#include <assert.h>

#include "fuzz-node.h"
#include "fuzz-util.h"
#include "usage/swap-space-users.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_text(data, size);
        SwapTable t = {};
        UsageScan s;

        if (!text)
                return 0;
        if (swaps_parse(text, &t) >= 0) {
                for (size_t i = 0; i < t.n_entries; i++)
                        assert(t.entries[i].filename);
                if (fuzz_scan_init(&s) >= 0) {
                        (void) swap_space_users_match(&s, &t);
                        usage_scan_done(&s);
                }
                swap_table_done(&t);
        }
        free(text);
        return 0;
}
