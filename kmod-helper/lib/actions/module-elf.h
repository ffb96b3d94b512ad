/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The metadata of a .ko image in memory, read by us rather than by libkmod:
 * libkmod 28 (RHEL 9) reads modinfo and vermagic by path, so each read would
 * open the file again and could meet another file than the one inserted.
 * Reading the image we hold (from the one fd that finit_module() gets too)
 * makes the name, vermagic and depends we check those of the bytes loaded.
 *
 * Pure functions over untrusted bytes (a driver container's file): every
 * offset is bounds-checked, nothing is trusted to be NUL-terminated. */

#include <stdbool.h>
#include <stddef.h>

/* The kind of image, from its first bytes (not its file name). */
typedef enum ModuleImageKind {
        MODULE_IMAGE_ELF,
        MODULE_IMAGE_XZ,
        MODULE_IMAGE_ZSTD,
        MODULE_IMAGE_GZIP,
        MODULE_IMAGE_UNKNOWN,
} ModuleImageKind;

ModuleImageKind module_image_kind(const void *image, size_t size);
bool module_image_kind_is_compressed(ModuleImageKind k);
const char *module_image_kind_to_string(ModuleImageKind k);

/* The .modinfo section of an ELF64 little-endian relocatable object (the
 * only kind of module x86_64 and aarch64 kernels load): *ret points into
 * image. 0, or -ENOEXEC when the image is not such an object or has no
 * .modinfo section inside its bounds. */
int module_elf_modinfo(const void *image, size_t size, const char **ret, size_t *ret_size);

/* The value of the first "key=value" string of a modinfo area, copied
 * (malloc'd). 0 with *ret, -ENOENT when absent, -ENOMEM. A value with a byte
 * outside printable ASCII is refused with -EBADMSG: names and vermagic are
 * compared and printed, and a control character must reach neither. */
int module_modinfo_get(const char *modinfo, size_t size, const char *key, char **ret);

/* The facts about a module image that a load checks. */
typedef struct ModuleMeta {
        char *name;     /* modinfo name=, kernel spelling */
        char *vermagic; /* first word of vermagic=: the release it was built for */
        char **depends; /* modinfo depends=, '-' spelled '_'; never NULL */
        char *srcversion; /* modinfo srcversion=; NULL when absent: compared with a
                             loaded module's to tell the same build */
} ModuleMeta;

/* 0 with *ret; -ENOEXEC (not an ELF module), -EBADMSG (no or bad name=),
 * -ENOMEM. A missing vermagic leaves ret->vermagic NULL (the check refuses it). */
int module_meta_parse(const void *image, size_t size, ModuleMeta *ret);
void module_meta_done(ModuleMeta *m);

/* Whether s is a module name the kernel would accept and that is safe in a
 * path: [A-Za-z0-9_]+, at most 55 bytes (MODULE_NAME_LEN - 1 is 55 on 64-bit). */
bool module_name_valid(const char *s);
