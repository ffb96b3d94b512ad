/* SPDX-License-Identifier: Apache-2.0 */
/* util/escape: control characters never reach a line-based channel raw. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/escape.h"

Test(escape, control_characters_become_octal) {
        char *s = escape_control("/mnt/x\nMAINPID=4242\nSTOPPING=1\t\x7f\x1b[2J");

        cr_assert_str_eq(s, "/mnt/x\\012MAINPID=4242\\012STOPPING=1\\011\\177\\033[2J");
        free(s);
        s = escape_control("plain /path with spaces and UTF-8 \xc3\xa9");
        cr_assert_str_eq(s, "plain /path with spaces and UTF-8 \xc3\xa9", "printable and UTF-8 bytes stay");
        free(s);
        s = escape_control(NULL);
        cr_assert_str_eq(s, "");
        free(s);
}

Test(escape, fputs_matches_escape_control) {
        const char *in = "a\nb\rc\001";
        char *buf = NULL, *e = escape_control(in);
        size_t n = 0;
        FILE *f = open_memstream(&buf, &n);

        cr_assert_eq(fputs_escaped(in, f), 0);
        fclose(f);
        cr_assert_str_eq(buf, e);
        free(buf);
        free(e);
}
