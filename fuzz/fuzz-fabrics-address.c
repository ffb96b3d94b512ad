/* SPDX-License-Identifier: Apache-2.0 */
/* A fabrics controller's sysfs `address` and option attributes (the
 * kernel's, but shaped by what the target and the admin gave): parse;
 * what parses is described and addressed without a crash. */
#include <assert.h>
#include <string.h>

#include "fuzz-util.h"
#include "nvme/fabrics-topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_text(data, size), *d, *a;
        FabricsController c = { .transport = (char *) "tcp", .subsysnqn = (char *) "nqn.x" };
        int v;

        if (!text)
                return 0;
        if (fabrics_parse_option(text, &v) >= 0)
                assert(v >= -1);
        if (fabrics_parse_address(text, &c) >= 0) {
                d = fabrics_controller_describe(&c);
                a = fabrics_controller_address(&c);
                free(d);
                free(a);
        }
        free(c.traddr);
        free(c.trsvcid);
        free(c.host_traddr);
        free(c.host_iface);
        free(text);
        return 0;
}
