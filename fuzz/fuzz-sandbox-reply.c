/* SPDX-License-Identifier: Apache-2.0 */
/* The parser child's reply, as its privileged parent decodes it
 * (sandbox/sandbox-reply.h): the bytes are whatever a taken-over child
 * chooses to write. Decoded both by the generic decoder against a schema
 * with a validator and by the config.json job's decoder, which also checks
 * the names and the environment keys. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/crio-config-job.h"
#include "sandbox/sandbox-reply.h"

static bool short_word(const char *s) {
        return strlen(s) < 8;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const ReplyField schema[] = {
                { 1, 7, 1, short_word, "word" },
                { 2, REPLY_STRING_MAX, 64, NULL, "line" },
        };
        static const char *const keys[] = { "ENABLE_NFSRDMA", "UNLOAD_STORAGE_MODULES",
                                            "RESTORE_DRIVER_ON_POD_TERMINATION", NULL };
        Reply *r = NULL;
        CrioConfig *c = NULL;
        const char *why = NULL;

        if (reply_decode(data, size, schema, sizeof(schema) / sizeof(schema[0]), &r, &why) == 0) {
                for (size_t i = 0; i < r->n_items; i++)
                        if (strlen(r->items[i].value) > REPLY_STRING_MAX)
                                abort();
                (void) reply_get(r, 1);
        }
        reply_free(r);
        if (crio_config_reply_decode(data, size, keys, &c, &why) == 0) {
                if (c->pod_namespace && !crio_k8s_label_valid(c->pod_namespace))
                        abort(); /* what the parent accepted must pass its own check */
        }
        crio_config_free(c);
        return 0;
}
