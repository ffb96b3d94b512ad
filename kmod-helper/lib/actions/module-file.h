/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Opening the files of a module tree without letting the tree decide where
 * we end up. A driver container's tree is outside input: a symlink to an
 * absolute path, `..` in modules.dep, a FIFO or a 2 GB file named nvme.ko
 * must not take us out of the tree, block us or exhaust us.
 *
 * Every open is openat2() relative to a root directory fd with
 * RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS ("/" and ".." stop at the root,
 * /proc/self/... style links are refused), O_NONBLOCK (a FIFO returns at
 * once instead of waiting for a writer), and fstat() must then say a regular
 * file no larger than the cap. */

#include <stdbool.h>
#include <stddef.h>

/* nvme.ko is about 200 KiB, nvme-core.ko 400 KiB; a build with debug info
 * stays below 16 MiB. */
#define MODULE_FILE_MAX (64u * 1024u * 1024u)
/* modules.dep of a full distribution tree is about 1 MiB. */
#define MODULE_DEP_FILE_MAX (16u * 1024u * 1024u)

/* Whether a relative path from a tree's index may be opened: not empty, not
 * absolute, no "." or ".." component, no empty component. Pure. */
bool module_relpath_valid(const char *relpath);

/* Opens root_fd-relative `path` as a directory (O_PATH is not enough:
 * fdopendir needs a readable fd). 0 with *ret_fd, or -errno. */
int module_dir_open(int root_fd, const char *path, int *ret_fd);

/* Opens root_fd-relative `path` read-only for a module or index file:
 * 0 with *ret_fd and *ret_size; -EXDEV when resolution would leave the root
 * or cross a magic link, -EBADFD when it is not a regular file
 * (FIFO, device, directory), -EFBIG above max, or -errno. */
int module_file_open(int root_fd, const char *path, size_t max, int *ret_fd, size_t *ret_size);

/* Reads the whole of an fd opened by module_file_open() (size as fstat
 * said; a file that grew is read up to that size, one that shrank to its
 * end): 0 with *ret (malloc'd, NUL-terminated) and *ret_size, or -errno. */
int module_file_read(int fd, size_t size, char **ret, size_t *ret_size);

/* The user-space resolution used where the sandbox refuses openat2() with
 * ENOSYS (systemd's RestrictSUIDSGID=): the same containment, one component
 * at a time. Exposed for its tests. An fd, or -errno. */
int module_open_in_root_walk(int root_fd, const char *path, int flags);
