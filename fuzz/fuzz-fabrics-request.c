/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's request to the root connect unit (written by the daemon,
 * whose identity a parser bug could take over): parse; what parses has a
 * verb the unit knows, what fails names the file and a line. */
#include <assert.h>
#include <string.h>

#include "actions/fabrics-pass.h"
#include "actions/fabrics-request.h"
#include "fuzz-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_text(data, size), *error = NULL;
        FabricsRequest req;
        int r;

        if (!text)
                return 0;
        r = fabrics_request_parse(text, "/run/nvme-swapguard/fabrics-request", &req, &error);
        if (r >= 0)
                assert(fabrics_verb_to_string(req.verb) && !error);
        else
                assert(r == -ENOMEM || (error && strncmp(error, "/run/nvme-swapguard/fabrics-request:", 36) == 0));
        free(error);
        free(text);
        return 0;
}
