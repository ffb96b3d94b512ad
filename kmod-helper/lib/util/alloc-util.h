/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Growing arrays that are appended to one element at a time (devices,
 * usages, index entries): geometric growth keeps the appends linear. */

#include <stddef.h>

/* Makes room for element n of *array (n elements used, room for *alloc):
 * when full, grows to *alloc * 2 + min elements of size bytes. 0 or
 * -ENOMEM; *array and *alloc untouched on failure. */
int array_reserve(void **array, size_t *alloc, size_t n, size_t size, size_t min);

#define ARRAY_RESERVE(array, alloc, n, min) array_reserve((void **) &(array), &(alloc), (n), sizeof(*(array)), (min))
