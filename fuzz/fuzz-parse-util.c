/* SPDX-License-Identifier: Apache-2.0 */
/* sysfs and /proc numbers (parse-util): strict, and what is accepted
 * prints back to the same digits. */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/sysmacros.h>

#include "fuzz-util.h"
#include "util/parse-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_text(data, size), buf[64];
        unsigned u = 7;
        uint64_t u64 = 7;
        int i = 7;
        dev_t d = 0;

        if (!s)
                return 0;
        if (safe_atou(s, &u) >= 0) {
                unsigned again = 0;

                /* what is accepted is a number that reads back the same */
                snprintf(buf, sizeof(buf), "%u", u);
                assert(safe_atou(buf, &again) == 0 && again == u);
        } else
                assert(u == 7);
        if (safe_atoi(s, &i) < 0)
                assert(i == 7);
        if (safe_atou64(s, &u64) < 0)
                assert(u64 == 7);
        if (parse_devno(s, &d) >= 0)
                (void) (major(d) + minor(d));
        if (is_all_digits(s) > 0)
                for (const char *c = s; *c; c++)
                        assert(*c >= '0' && *c <= '9');
        free(s);
        return 0;
}
