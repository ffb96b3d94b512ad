/* SPDX-License-Identifier: Apache-2.0 */
/* What the kernel writes back to the connect: the reply read from
 * /dev/nvme-fabrics ("instance=N,cntlid=M"), its option listing, the
 * device number in sysfs, and a kernel log line copied into a result
 * (redacted: no secret token survives). */
#include <assert.h>
#include <string.h>
#include <sys/types.h>

#include "actions/fabrics-connect.h"
#include "actions/fabrics-device.h"
#include "fuzz-util.h"
#include "util/strv.h"

static bool delimiter(char c) {
        return c == '\0' || c == ' ' || c == ',' || c == '\'' || c == '"' || c == '\n' || c == ';' || c == '\t';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_text(data, size), *redacted, **options = NULL;
        unsigned instance;
        dev_t dev;

        if (!text)
                return 0;
        (void) fabrics_parse_connect_reply(text, &instance);
        (void) fabrics_device_parse_dev(text, &dev);
        if (fabrics_supported_options_parse(text, &options) >= 0) {
                assert(options[0]);
                STRV_FOREACH(o, options)
                        assert(**o && !strchr(*o, ',') && !strchr(*o, '='));
        }
        strv_free(options);
        redacted = fabrics_redact_secrets(text);
        if (redacted)
                for (const char *p = redacted; (p = strstr(p, "DHHC-1:")); p++)
                        assert(delimiter(p[7]) || strncmp(p + 7, "<redacted>", 10) == 0);
        free(redacted);
        free(text);
        return 0;
}
