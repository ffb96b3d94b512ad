/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Reading the small text files of /proc and /sys, and directories of names.
 * Paths are taken as given: build them with host_path() first.
 * All return 0 or -errno (-ENOENT for a missing file, -EFBIG when a "small"
 * file is not); *ret is untouched on failure. */

#include <dirent.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/macro.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir);

/* Upper bound for read_full_file(): sysfs attributes are one page, /proc
 * tables we read whole are far below this. */
#define READ_FULL_FILE_MAX (16u * 1024u * 1024u)

/* A regular file of at most max bytes, whole and NUL-terminated, for files
 * that others write (a container's config.json and pidfile, the daemon's
 * state file): a link is not followed (-ELOOP), a FIFO or device is
 * -EBADMSG rather than a read that blocks or never ends, a larger file
 * -EFBIG. A file that shrinks while read gives what was there. */
int read_regular_file(const char *path, size_t max, char **ret, size_t *ret_size);
/* The same for an fd already open (its offset is not used: pread). */
int read_regular_fd(int fd, size_t max, char **ret, size_t *ret_size);
/* The first size bytes of fd (fewer if it ends first), NUL-terminated,
 * read with pread from offset 0; *ret_size (may be NULL) excludes the NUL. */
int read_fd_at_most(int fd, size_t size, char **ret, size_t *ret_size);

/* The first line without its trailing newline ("" for an empty file). */
int read_one_line_file(const char *path, char **ret);

/* The whole file, NUL-terminated; *ret_size (may be NULL) excludes the NUL. */
int read_full_file(const char *path, char **ret, size_t *ret_size);

/* The names in a directory, "." and ".." excluded, sorted (strcmp); a strv. */
int read_dir_names(const char *path, char ***ret);

/* Whether path exists (lstat: a dangling symlink exists): 1, 0 (ENOENT,
 * ENOTDIR) or -errno. Use it, never access(2): access() checks with the
 * real UID and, for a non-root process, ignores every capability, so the
 * daemon's dynamic user (CAP_DAC_READ_SEARCH, ambient) would get EACCES for
 * whatever lies under CRI-O's 0700 directories (seen with real CRI-O in
 * tests/daemon/vm-crio: no container was ever seen). */
int path_exists(const char *path);

/* Target of a symlink, as stored (not resolved). */
int read_link(const char *path, char **ret);

/* The same, relative to a directory descriptor (AT_FDCWD for the cwd):
 * reading many attributes of one sysfs directory this way walks its
 * (long, symlinked) path once instead of once per attribute. */
int read_full_file_at(int dirfd, const char *path, char **ret, size_t *ret_size);
int read_one_line_file_at(int dirfd, const char *path, char **ret);
int read_dir_names_at(int dirfd, const char *path, char ***ret);
int read_link_at(int dirfd, const char *path, char **ret);

/* The last component of a path ("/a/b" -> "b", "b" -> "b"), pointing into path. */
const char *path_basename(const char *path);

/* Replaces path with text (a final newline added when it has none) so that a
 * reader sees the old or the new content, never a part: <path>.tmp written,
 * fsync'd and renamed over path, then the directory fsync'd. mode is applied
 * whatever the umask. A link at <path>.tmp is not followed. */
int write_file_atomic(const char *path, const char *text, mode_t mode);
/* The same, the temporary file created anew (O_EXCL, a stale one removed
 * first) with mode from the start: for a file that must never have been
 * readable by others, not even for a moment (secrets). */
int write_file_atomic_exclusive(const char *path, const char *text, mode_t mode);
