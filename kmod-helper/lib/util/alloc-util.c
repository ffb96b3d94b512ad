/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/alloc-util.h"

int array_reserve(void **array, size_t *alloc, size_t n, size_t size, size_t min) {
        size_t want;
        void *grown;

        if (n < *alloc)
                return 0;
        if (*alloc > (SIZE_MAX - min) / 2)
                return -ENOMEM;
        want = *alloc * 2 + min;
        if (size && want > SIZE_MAX / size)
                return -ENOMEM;
        grown = realloc(*array, want * size);
        if (!grown)
                return -ENOMEM;
        *array = grown;
        *alloc = want;
        return 0;
}
