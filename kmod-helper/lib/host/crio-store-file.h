/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The opens of a container's files in CRI-O's store (crio.h):
 * <containers_dir>/<id>/userdata/config.json and .../pidfile. Apart because
 * the store's directories are root's 0700: the daemon asks its privileged
 * reader (sandbox/privileged-reader.h), which opens with
 * crio_store_file_open_direct() and passes the fd back; elsewhere (the CLI,
 * tests) the process opens itself.
 *
 * The open is made as if an attacker chose what is asked: the id must be a
 * container id (crio_id_valid: 64 lowercase hex, so no '/' and no ".."),
 * the file one of a fixed list; each component below containers_dir is
 * opened with O_NOFOLLOW (a symlink planted as <id>, userdata or the file
 * is refused, ELOOP or ENOTDIR), the file with O_NONBLOCK (a FIFO planted
 * there does not hang the opener) and must be a regular file of at most the
 * file's bound.
 *
 * Library code: no logging. */

#include <stddef.h>

typedef enum CrioStoreFile {
        CRIO_STORE_FILE_CONFIG = 1,  /* config.json, at most CRIO_CONFIG_MAX */
        CRIO_STORE_FILE_PIDFILE = 2, /* pidfile, at most CRIO_PIDFILE_MAX */
} CrioStoreFile;

/* A pidfile is a number and a newline. */
#define CRIO_PIDFILE_MAX 64U

/* The file's name in userdata/ and its size bound; NULL and 0 for what is
 * not a CrioStoreFile. */
const char *crio_store_file_name(CrioStoreFile f);
size_t crio_store_file_max(CrioStoreFile f);

/* Opens containers_dir/<id>/userdata/<f's name> as described above. 0 with
 * *ret_fd (O_CLOEXEC), or: -EINVAL for an id or file not valid; -EBADMSG
 * when it is not a regular file; -EFBIG past its bound; the open's own
 * -errno (-ENOENT: not there (yet); -ELOOP, -ENOTDIR: a symlink). */
int crio_store_file_open_direct(const char *containers_dir, const char *id, CrioStoreFile f, int *ret_fd);

/* Who opens: by default this process (crio_store_file_open_direct); the
 * daemon sets its privileged reader here. A source answers as the direct
 * open does, or with another negative errno when it could not ask (a reader
 * that is gone, or one that serves another store: -EXDEV). NULL restores the
 * default. */
typedef int (*CrioStoreFileSource)(void *userdata, const char *containers_dir, const char *id, CrioStoreFile f,
                                   int *ret_fd);
void crio_store_file_set_source(CrioStoreFileSource source, void *userdata);

/* Through the source set above. */
int crio_store_file_open(const char *containers_dir, const char *id, CrioStoreFile f, int *ret_fd);
