/* SPDX-License-Identifier: Apache-2.0 */
/* secrets.json as the connect reads it (root's file, but a crash may leave
 * it half-written): the lookup of one connection's secrets by identity;
 * what is found is a string of its own, built into a connect string only
 * when it has the DHHC-1 form and no separator. */
#include <assert.h>
#include <string.h>

#include "actions/fabrics-options.h"
#include "fuzz-util.h"
#include "nvme/fabrics-secrets.h"
#include "nvme/fabrics-topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_text(data, size), *host = NULL, *ctrl = NULL, *options = NULL;
        FabricsController c = {
                .transport = (char *) "tcp", .traddr = (char *) "127.0.0.1", .trsvcid = (char *) "4420",
                .subsysnqn = (char *) "nqn.2026-12.test:sub", .hostnqn = (char *) "nqn.host", .hostid = (char *) "1",
                .ctrl_loss_tmo = FABRICS_OPT_UNSET, .reconnect_delay = FABRICS_OPT_UNSET,
                .fast_io_fail_tmo = FABRICS_OPT_UNSET, .kato = FABRICS_OPT_UNSET, .nr_io_queues = FABRICS_OPT_UNSET,
                .queue_size = FABRICS_OPT_UNSET, .nr_write_queues = FABRICS_OPT_UNSET,
                .nr_poll_queues = FABRICS_OPT_UNSET,
        };
        int r;

        if (!text)
                return 0;
        r = fabrics_secrets_parse(text, &c, &host, &ctrl);
        assert(r >= 0 || r == -ENOENT || r == -EBADMSG || r == -ENOMEM);
        if (r >= 0) {
                bool ok = (!host || fabrics_secret_format_ok(host)) && (!ctrl || fabrics_secret_format_ok(ctrl));

                if (ok && fabrics_connect_options(&c, host, ctrl, &options, NULL) >= 0)
                        assert(!strchr(options, '\n') && !strstr(options, ",,"));
                fabrics_secret_free(options);
        }
        fabrics_secret_free(host);
        fabrics_secret_free(ctrl);
        free(text);
        return 0;
}
