/* SPDX-License-Identifier: Apache-2.0 */
/* result.json as the daemon reads it (written by the root unit; a crash
 * may leave anything): parse and peek at the token; what parses has an
 * outcome per connection, what fails names the file. */
#include <assert.h>
#include <string.h>

#include "fuzz-util.h"
#include "watch/fabrics-result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_text(data, size), *error = NULL;
        FabricsResult *r = NULL;
        int k;

        if (!text)
                return 0;
        (void) fabrics_result_peek_token(text);
        k = fabrics_result_parse("result.json", text, &r, &error);
        if (k >= 0) {
                for (size_t i = 0; i < r->n_connections; i++)
                        assert(fabrics_result_outcome_to_string(r->connections[i].outcome));
                fabrics_result_free(r);
        } else
                assert(k == -ENOMEM || (error && strncmp(error, "result.json: ", 13) == 0));
        free(error);
        free(text);
        return 0;
}
