/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Several inputs for one parser child (parser-sandbox.h): the child has one
 * input fd and may open nothing, so the parent puts the bytes it read (the
 * module files of one preparation, a tree's two index files) one after the
 * other into a memfd, each after its length, and seals it: what the child
 * reads is what the parent read and will use, one fork for all of them.
 *
 *     u64 length (little endian) | length bytes | u64 length | ...
 *
 * The parent knows how many parts it put; the child reads exactly that
 * many. Library code: no logging. */

#include <stddef.h>
#include <stdint.h>

typedef struct BundlePart {
        const void *data;
        size_t size;
} BundlePart;

/* The parent: a sealed (no write, grow, shrink) memfd holding parts,
 * positioned at 0. 0 with *ret_fd, or -errno (memfd_create, write, seal). */
int sandbox_bundle_new(const BundlePart *parts, size_t n, int *ret_fd);

/* The child: the next part from fd (malloc'd, NUL-terminated after its
 * bytes), -EFBIG when its length is over max, -EBADMSG when the bundle ends
 * inside it, -ENOMEM. */
int sandbox_bundle_next(int fd, size_t max, char **ret, size_t *ret_size);
