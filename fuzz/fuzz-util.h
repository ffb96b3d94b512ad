/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Shared by the libFuzzer harnesses: the input as a NUL-terminated string
 * (our parsers take text; an embedded NUL just ends it early, as a C reader
 * of the file would see it). */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline char *fuzz_text(const uint8_t *data, size_t size) {
        char *s = malloc(size + 1);

        if (!s)
                return NULL;
        memcpy(s, data, size);
        s[size] = '\0';
        return s;
}

/* Each harness defines it; libFuzzer calls it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
