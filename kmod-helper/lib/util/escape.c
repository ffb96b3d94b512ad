/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/escape.h"

static bool needs_escape(unsigned char c) {
        return c < 0x20 || c == 0x7f;
}

char *escape_control(const char *s) {
        size_t n = 0;
        char *out, *o;

        if (!s)
                s = "";
        for (const char *p = s; *p; p++)
                n += needs_escape((unsigned char) *p) ? 4 : 1;
        out = malloc(n + 1);
        if (!out)
                return NULL;
        o = out;
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                if (!needs_escape(*p)) {
                        *o++ = (char) *p;
                        continue;
                }
                *o++ = '\\';
                *o++ = (char) ('0' + ((*p >> 6) & 7));
                *o++ = (char) ('0' + ((*p >> 3) & 7));
                *o++ = (char) ('0' + (*p & 7));
        }
        *o = '\0';
        return out;
}

int fputs_escaped(const char *s, FILE *f) {
        for (const unsigned char *p = (const unsigned char *) (s ? s : ""); *p; p++) {
                int r = needs_escape(*p) ? fprintf(f, "\\%03o", *p) : fputc(*p, f);

                if (r < 0)
                        return -EIO;
        }
        return 0;
}
