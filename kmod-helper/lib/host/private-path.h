/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The root-only directories the daemon follows without reading a file in
 * them: CRI-O's store (overlay-containers/, each <id>/ and <id>/userdata/,
 * root's 0700) and the runtimes' state (<runtime root>/<id>/exec.fifo under
 * /run/runc and /run/crun, 0700). The daemon looks at them (is it there,
 * of which type, since when), watches them with inotify and lists the
 * store. Apart because every one of those needs to search a directory the
 * daemon's identity may not: the daemon asks its privileged reader
 * (sandbox/privileged-reader.h), which does it with the *_direct()
 * functions below; elsewhere (the CLI, tests, a fake root without a
 * reader) the process does it itself.
 *
 * Nothing here takes a path: a PrivatePath names one of a closed list, the
 * id must be a container id (crio_id_valid: 64 lowercase hex), and the path
 * is made here from the store given (the configured one) and the fixed
 * names. Below that store or runtime root no component may be a symlink
 * (lstat'ed; each watch IN_DONT_FOLLOW | IN_ONLYDIR where it is a
 * directory's): what is looked at or watched is in the tree CRI-O or the
 * runtime made.
 *
 * A watch is added to the caller's inotify fd: an inotify fd passed to
 * another process (SCM_RIGHTS) is the same instance, so a watch the reader
 * adds on its copy delivers its events to the daemon's, and the daemon's
 * inotify_rm_watch() on its own fd drops it. The mask is this module's, per
 * kind, never the caller's.
 *
 * Library code: no logging. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/inotify.h>
#include <sys/types.h>

typedef enum PrivatePath {
        PRIVATE_PATH_STORE = 1,     /* <containers_dir> (the store's overlay-containers/); id unused */
        PRIVATE_PATH_ENTRY = 2,     /* <containers_dir>/<id> */
        PRIVATE_PATH_USERDATA = 3,  /* <containers_dir>/<id>/userdata */
        PRIVATE_PATH_RUNC_FIFO = 4, /* host_path(/run/runc)/<id>/exec.fifo */
        PRIVATE_PATH_CRUN_FIFO = 5, /* host_path(/run/crun)/<id>/exec.fifo */
} PrivatePath;

#define PRIVATE_PATH_MAX_KIND PRIVATE_PATH_CRUN_FIFO
/* A watch put this many directories above its path, at most (path-watch.h
 * climbs to the nearest existing one). */
#define PRIVATE_PATH_UP_MAX 64U

/* The store directory's own watch: entries coming and going, it going. */
#define PRIVATE_PATH_STORE_MASK                                                                                    \
        (IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
/* Any other directory's: files created, written (closed after writing),
 * renamed in or out, removed; the directory itself going. */
#define PRIVATE_PATH_DIR_MASK                                                                                      \
        (IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF |   \
         IN_ONLYDIR)

/* What a look saw. */
typedef struct PrivatePathLook {
        mode_t type;         /* st_mode & S_IFMT (lstat: a symlink is S_IFLNK) */
        uint64_t mtime_usec; /* st_mtim */
} PrivatePathLook;

/* Whether p is a PrivatePath and id fits it (NULL or ignored for the
 * store itself; a container id otherwise). */
bool private_path_valid(PrivatePath p, const char *id);
/* The i-th exec fifo kind (crio_runtime_root(i)'s), 0 past the last. */
PrivatePath private_path_fifo(size_t i);
/* The path p names (through host_path() for the runtime roots;
 * containers_dir is taken as given: already host_path()'d). For logs, and
 * for the *_direct() functions. -EINVAL for an invalid p or id. */
int private_path_make(const char *containers_dir, PrivatePath p, const char *id, char **ret);

/* lstat()s what p names, after checking that no component below its base
 * is a symlink. 0 with *ret; -ENOENT (or -ENOTDIR) when it is not there;
 * -ELOOP when a component below the base is a symlink; -EINVAL; the
 * lstat's own -errno. */
int private_path_look_direct(const char *containers_dir, PrivatePath p, const char *id, PrivatePathLook *ret);

/* Adds a watch for what p names on inotify_fd, with the kind's mask.
 * climb false: on the directory p names (not for a fifo: -EINVAL), or
 * -ENOENT when it is not there; climb true: on the nearest existing
 * directory above what p names (path-watch.h: its parent, or higher while
 * that is not there), never more than PRIVATE_PATH_UP_MAX above the
 * parent. 0 with *ret_wd and *ret_up (0: the parent; 1: its parent...), or
 * -errno (-EINVAL from the kernel: inotify_fd is no inotify fd). */
int private_path_watch_direct(int inotify_fd, const char *containers_dir, PrivatePath p, const char *id, bool climb,
                              int *ret_wd, unsigned *ret_up);

/* Opens the store directory (containers_dir) for listing: O_RDONLY |
 * O_DIRECTORY | O_CLOEXEC; the admin's path, followed as configured. 0
 * with *ret_fd, or -errno. */
int private_path_open_store_direct(const char *containers_dir, int *ret_fd);

/* Who does it: by default this process (the *_direct() functions); the
 * daemon sets its privileged reader here. A source answers as the direct
 * call does, or with another negative errno when it could not ask (a reader
 * that is gone: -ENOTCONN; one that serves another store: -EXDEV). */
typedef struct PrivatePathSource {
        int (*look)(void *userdata, const char *containers_dir, PrivatePath p, const char *id, PrivatePathLook *ret);
        int (*watch)(void *userdata, int inotify_fd, const char *containers_dir, PrivatePath p, const char *id,
                     bool climb, int *ret_wd, unsigned *ret_up);
        int (*open_store)(void *userdata, const char *containers_dir, int *ret_fd);
} PrivatePathSource;
/* NULL restores the default. source must outlive its use. */
void private_path_set_source(const PrivatePathSource *source, void *userdata);

/* Through the source set above. */
int private_path_look(const char *containers_dir, PrivatePath p, const char *id, PrivatePathLook *ret);
int private_path_watch(int inotify_fd, const char *containers_dir, PrivatePath p, const char *id, bool climb,
                       int *ret_wd, unsigned *ret_up);
int private_path_open_store(const char *containers_dir, int *ret_fd);
/* private_path_look: 1 when there (of any type), 0 when not, -errno when
 * it cannot be told. */
int private_path_exists(const char *containers_dir, PrivatePath p, const char *id);
/* private_path_look: whether a directory is there (a failure: no). */
bool private_path_is_dir(const char *containers_dir, PrivatePath p, const char *id);
