/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's configuration file (daemon/config/daemon-config.c: the inih handler and the
 * validation of every key): any text gives a config or errors, never a
 * crash; a valid result keeps the invariants main() and the manager rely on. */
#include <assert.h>

#include "config/daemon-config.h"
#include "fuzz-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_text(data, size), **errors = NULL;
        Config *c = NULL;
        int r;

        if (!text || config_new_default(&c) < 0) {
                free(text);
                return 0;
        }
        r = config_parse_string(c, "fuzz.conf", text, &errors);
        if (r == 0 && !errors) {
                /* What the manager dereferences without checking. */
                assert(c->container_namespace && c->container_name && c->pod_name_prefix);
                assert(c->ready_file && c->ready_file[0] == '/');
                assert(c->container_store && c->container_store[0] == '/');
                assert(c->ready_timeout_usec > 0);
                assert(c->unload_at >= 0 && c->unload_at < _UNLOAD_AT_MAX);
        }
        strv_free(errors);
        config_free(c);
        free(text);
        return 0;
}
