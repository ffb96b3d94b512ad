/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>

#include "util/string-util.h"

char *strdup_vprintf(const char *fmt, va_list ap) {
        char *s;

        return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

char *strdup_printf(const char *fmt, ...) {
        va_list ap;
        char *s;

        va_start(ap, fmt);
        s = strdup_vprintf(fmt, ap);
        va_end(ap);
        return s;
}
