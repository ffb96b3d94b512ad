/* SPDX-License-Identifier: Apache-2.0 */
/* The fabrics record left in /run by the capture (a crash may leave it
 * half-written, an operator may edit it): parse; what parses either has a
 * fabrics transport and a subsystem NQN for every controller, or failed
 * with a line naming the file; written back, it parses again to the same
 * JSON; its option strings build, with secrets too (a well-formed one, and
 * the record's own hostile strings taken as secrets): refused, or made of
 * the kernel's option names only, each once per comma. */
#include <assert.h>
#include <string.h>

#include "actions/fabrics-options.h"
#include "fuzz-util.h"
#include "nvme/fabrics-record-json.h"
#include "nvme/fabrics-record.h"
#include "nvme/fabrics-secrets.h"
#include "util/json-util.h"

/* The names the kernel knows (opt_tokens, fabrics.c 6.12) and we build. */
static bool known_option(const char *o, size_t len) {
        static const char *const names[] = { "nqn", "transport", "traddr", "trsvcid", "host_traddr", "host_iface",
                                             "hostnqn", "hostid", "nr_io_queues", "nr_write_queues", "nr_poll_queues",
                                             "queue_size", "keep_alive_tmo", "reconnect_delay", "ctrl_loss_tmo",
                                             "fast_io_fail_tmo", "hdr_digest", "data_digest", "dhchap_secret",
                                             "dhchap_ctrl_secret", "tls", "tls_key" };
        size_t n = strcspn(o, "=,");

        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                if (n <= len && strlen(names[i]) == n && strncmp(o, names[i], n) == 0)
                        return true;
        return false;
}

static void check_options(const FabricsController *c, const char *host, const char *ctrl) {
        char *options = NULL;

        if (fabrics_connect_options(c, host, ctrl, &options, NULL) < 0)
                return;
        assert(strncmp(options, "nqn=", 4) == 0 && !strchr(options, '\n'));
        for (const char *p = options; *p;) {
                size_t len = strcspn(p, ",");

                assert(len > 0 && known_option(p, len));
                p += len + (p[len] == ',');
        }
        fabrics_secret_free(options);
}

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
                        const FabricsController *c = &t->controllers[i];

                        assert(c->transport && c->subsysnqn);
                        /* a value that parses may still be hostile: refused, or free of separators */
                        check_options(c, NULL, NULL);
                        check_options(c, "DHHC-1:00:YWJj:", "DHHC-1:01:YWJjZA==:");
                        check_options(c, c->hostnqn, c->traddr);
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
