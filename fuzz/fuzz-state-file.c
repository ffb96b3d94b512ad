/* SPDX-License-Identifier: Apache-2.0 */
/* The state file the previous daemon left in /run (a crash may leave it
 * half-written, an operator may edit it): parse, and what parses writes
 * back as JSON that parses again to the same state. */
#include <assert.h>

#include "fuzz-util.h"
#include "publish/state-file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_text(data, size), *json = NULL;
        StateFile *s = NULL, *again = NULL;

        if (!text)
                return 0;
        if (state_file_from_json(text, &s) >= 0) {
                assert(s->state >= 0 && s->state < _SWAP_STATE_MAX);
                if (state_file_to_json(s, &json) >= 0) {
                        assert(state_file_from_json(json, &again) >= 0);
                        assert(again->state == s->state);
                        state_file_free(again);
                        free(json);
                }
                state_file_free(s);
        }
        free(text);
        return 0;
}
