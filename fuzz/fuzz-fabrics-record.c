/* SPDX-License-Identifier: Apache-2.0 */
/* The fabrics record left in /run by the capture (a crash may leave it
 * half-written, an operator may edit it): parse; what parses either has a
 * fabrics transport and a subsystem NQN for every controller, or failed
 * with a line naming the file; written back, it parses again to the same
 * JSON; its option strings build. */
#include <assert.h>
#include <string.h>

#include "actions/fabrics-options.h"
#include "fuzz-util.h"
#include "nvme/fabrics-record-json.h"
#include "nvme/fabrics-record.h"
#include "util/json-util.h"

static char *record_text(const FabricsTopology *t) {
        json_object *o = NULL;
        char *text = NULL;

        if (fabrics_record_to_json(t, &o) >= 0)
                text = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        json_object_put(o);
        return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_text(data, size), *error = NULL, *json = NULL, *again_json = NULL;
        FabricsTopology *t = NULL, *again = NULL;

        if (!text)
                return 0;
        if (fabrics_record_parse(text, "record.json", &t, &error) >= 0) {
                for (size_t i = 0; i < t->n_controllers; i++) {
                        char *options = NULL;

                        assert(t->controllers[i].transport && t->controllers[i].subsysnqn);
                        /* a value that parses may still be hostile: refused, or free of separators */
                        if (fabrics_connect_options(&t->controllers[i], NULL, NULL, &options, NULL) >= 0)
                                assert(strncmp(options, "nqn=", 4) == 0 && !strchr(options, '\n'));
                        free(options);
                }
                json = record_text(t);
                if (json) {
                        assert(fabrics_record_parse(json, "record.json", &again, NULL) >= 0);
                        again_json = record_text(again);
                        assert(!again_json || strcmp(json, again_json) == 0);
                }
                fabrics_topology_free(again);
                fabrics_topology_free(t);
        } else
                assert(!error || strncmp(error, "record.json: ", 13) == 0);
        free(again_json);
        free(json);
        free(error);
        free(text);
        return 0;
}
