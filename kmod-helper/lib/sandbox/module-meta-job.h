/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The modinfo of .ko images from a driver container's tree, parsed in the
 * parser child (parser-sandbox.h): the files are the image's, whoever built
 * it. The parent opens and reads each file itself (the bytes it will hand
 * to finit_module()), passes all the images of one batch in one sealed
 * memfd (sandbox-bundle.h: one fork for a whole preparation), and the child
 * runs module_meta_parse() on each and sends, per image in order:
 *   - its result: 0, or the errno of module_meta_parse() (ENOEXEC: not an
 *     ELF module; EBADMSG: no or bad name=, a bad depends=);
 *   - when 0: name=, the first word of vermagic= and srcversion= (each left
 *     out when absent, unprintable or longer than its bound), and each
 *     depends= entry.
 * The parent refuses the whole reply when any field fails its own check:
 * a name or a dependency that is not a module name, a vermagic with a
 * space or longer than MODULE_META_VERMAGIC_MAX, a srcversion longer than
 * MODULE_META_SRCVERSION_MAX, more dependencies than
 * MODULE_META_DEPENDS_MAX, another result than those, fields after a
 * failure, a result count that is not the number of images. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "actions/module-elf.h"
#include "sandbox/sandbox-bundle.h"

/* Images per child: a preparation's bound (load-prepare.c). */
#define MODULE_META_BATCH_MAX 64U
/* A kernel release is at most 64 bytes (utsname); srcversion is 24. */
#define MODULE_META_VERMAGIC_MAX 128U
#define MODULE_META_SRCVERSION_MAX 64U
/* Far above any module's (a handful; the most in a distribution tree is
 * about 30). */
#define MODULE_META_DEPENDS_MAX 128U

/* The record keys. */
enum {
        MODULE_META_REPLY_RESULT = 1,
        MODULE_META_REPLY_NAME,
        MODULE_META_REPLY_VERMAGIC,
        MODULE_META_REPLY_SRCVERSION,
        MODULE_META_REPLY_DEPEND,
};

/* Parses the n images (n <= MODULE_META_BATCH_MAX) in one child. 0 with
 * ret_errors[i] = 0 and ret_metas[i] filled, or ret_errors[i] = -ENOEXEC /
 * -EBADMSG (as module_meta_parse() says them) for each; or, for the batch
 * as a whole, -EIO (the child failed: killed, past its deadline, a reply
 * refused, an error of its own), with *ret_why (static) saying what
 * happened and nothing filled; -EINVAL, -ENOMEM (the parent's own). */
int module_meta_parse_confined(const BundlePart *images, size_t n, ModuleMeta *ret_metas, int *ret_errors,
                               const char **ret_why);

/* One image: in the child when confined, else module_meta_parse() here.
 * The returns of both. */
int module_meta_parse_in(bool confined, const void *image, size_t size, ModuleMeta *ret, const char **ret_why);

/* The parent's decoding of a reply for n images, for the tests and the
 * fuzzer: 0, -EIO with *ret_why for a reply refused or an error of the
 * child's own, -ENOMEM. */
int module_meta_reply_decode(const uint8_t *buf, size_t len, size_t n, ModuleMeta *ret_metas, int *ret_errors,
                             const char **ret_why);
/* The largest reply for n images. */
size_t module_meta_reply_max(size_t n);
