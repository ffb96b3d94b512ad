/* SPDX-License-Identifier: Apache-2.0 */
/* Looks at, watches and lists the root-only directories the daemon follows,
 * by a closed list of names (the design: private-path.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/crio.h"
#include "host/host-root.h"
#include "host/private-path.h"
#include "util/macro.h"

static const PrivatePathSource *path_source;
static void *path_source_userdata;

void private_path_set_source(const PrivatePathSource *source, void *userdata) {
        path_source = source;
        path_source_userdata = userdata;
}

bool private_path_valid(PrivatePath p, const char *id) {
        switch (p) {
        case PRIVATE_PATH_STORE:
                return true;
        case PRIVATE_PATH_ENTRY:
        case PRIVATE_PATH_USERDATA:
        case PRIVATE_PATH_RUNC_FIFO:
        case PRIVATE_PATH_CRUN_FIFO:
                return crio_id_valid(id);
        }
        return false;
}

PrivatePath private_path_fifo(size_t i) {
        static const PrivatePath fifos[] = { PRIVATE_PATH_RUNC_FIFO, PRIVATE_PATH_CRUN_FIFO };

        return i < ELEMENTSOF(fifos) ? fifos[i] : 0;
}

static bool is_fifo(PrivatePath p) {
        return p == PRIVATE_PATH_RUNC_FIFO || p == PRIVATE_PATH_CRUN_FIFO;
}

/* p as a base directory and the components below it, in order. */
typedef struct Split {
        char *base;            /* containers_dir, or the runtime root through host_path() */
        const char *comps[2];
        size_t depth;          /* how many of comps name what p names */
} Split;

static void split_done(Split *s) {
        free(s->base);
}

static int split(const char *containers_dir, PrivatePath p, const char *id, Split *ret) {
        Split s = {};

        if (!private_path_valid(p, id))
                return -EINVAL;
        if (is_fifo(p)) {
                const char *root = crio_runtime_root(p == PRIVATE_PATH_RUNC_FIFO ? 0 : 1);

                if (!root)
                        return -EINVAL;
                if (host_path(root, &s.base) < 0)
                        return -ENOMEM;
                s.comps[0] = id;
                s.comps[1] = "exec.fifo";
                s.depth = 2;
        } else {
                if (!containers_dir || containers_dir[0] != '/')
                        return -EINVAL;
                if (!(s.base = strdup(containers_dir)))
                        return -ENOMEM;
                if (p != PRIVATE_PATH_STORE)
                        s.comps[s.depth++] = id;
                if (p == PRIVATE_PATH_USERDATA)
                        s.comps[s.depth++] = "userdata";
        }
        *ret = s;
        return 0;
}

/* The path at depth k: k components below the base (k >= 0), or -k
 * directories above it. */
static int split_path(const Split *s, long k, char **ret) {
        char *path;

        if (k >= 0) {
                if (asprintf(&path, "%s%s%s%s%s", s->base, k > 0 ? "/" : "", k > 0 ? s->comps[0] : "",
                             k > 1 ? "/" : "", k > 1 ? s->comps[1] : "") < 0)
                        return -ENOMEM;
        } else {
                if (!(path = strdup(s->base)))
                        return -ENOMEM;
                for (long up = 0; up < -k; up++) {
                        char *slash = strrchr(path, '/');

                        if (!slash || slash == path)
                                path[1] = '\0'; /* "/" stays "/" */
                        else
                                *slash = '\0';
                }
        }
        *ret = path;
        return 0;
}

/* Components 1..n below the base, each a directory and no symlink. */
static int below_are_dirs(const Split *s, size_t n) {
        for (size_t k = 1; k <= n; k++) {
                _cleanup_free_ char *path = NULL;
                struct stat st;
                int r = split_path(s, (long) k, &path);

                if (r < 0)
                        return r;
                if (lstat(path, &st) < 0)
                        return -errno;
                if (S_ISLNK(st.st_mode))
                        return -ELOOP;
                if (!S_ISDIR(st.st_mode))
                        return -ENOTDIR;
        }
        return 0;
}

int private_path_make(const char *containers_dir, PrivatePath p, const char *id, char **ret) {
        _cleanup_(split_done) Split s = {};
        int r = split(containers_dir, p, id, &s);

        if (r < 0)
                return r;
        return split_path(&s, (long) s.depth, ret);
}

int private_path_look_direct(const char *containers_dir, PrivatePath p, const char *id, PrivatePathLook *ret) {
        _cleanup_(split_done) Split s = {};
        _cleanup_free_ char *path = NULL;
        struct stat st;
        int r;

        if ((r = split(containers_dir, p, id, &s)) < 0)
                return r;
        /* The base is the admin's (or the runtime's fixed root): followed
         * as given. Below it, nothing is followed. */
        if (s.depth == 0) {
                if (stat(s.base, &st) < 0)
                        return -errno;
        } else {
                if ((r = below_are_dirs(&s, s.depth - 1)) < 0)
                        return r;
                if ((r = split_path(&s, (long) s.depth, &path)) < 0)
                        return r;
                if (lstat(path, &st) < 0)
                        return -errno;
        }
        *ret = (PrivatePathLook) {
                .type = st.st_mode & S_IFMT,
                .mtime_usec = (uint64_t) st.st_mtim.tv_sec * 1000000ULL + (uint64_t) st.st_mtim.tv_nsec / 1000ULL,
        };
        return 0;
}

/* A watch on the directory at depth k, or -errno (-ENOENT, -ENOTDIR: not
 * a directory there now). */
static int watch_at(int inotify_fd, const Split *s, PrivatePath p, long k) {
        _cleanup_free_ char *path = NULL;
        uint32_t mask = k == 0 && p == PRIVATE_PATH_STORE ? PRIVATE_PATH_STORE_MASK : PRIVATE_PATH_DIR_MASK;
        int r, wd;

        if (k > 0) {
                if ((r = below_are_dirs(s, (size_t) k)) < 0)
                        return r == -ELOOP ? -ENOTDIR : r;
                mask |= IN_DONT_FOLLOW;
        }
        if ((r = split_path(s, k, &path)) < 0)
                return r;
        wd = inotify_add_watch(inotify_fd, path, mask);
        return wd < 0 ? -errno : wd;
}

int private_path_watch_direct(int inotify_fd, const char *containers_dir, PrivatePath p, const char *id, bool climb,
                              int *ret_wd, unsigned *ret_up) {
        _cleanup_(split_done) Split s = {};
        int r;

        if ((r = split(containers_dir, p, id, &s)) < 0)
                return r;
        if (!climb) {
                if (is_fifo(p))
                        return -EINVAL;
                if ((r = watch_at(inotify_fd, &s, p, (long) s.depth)) < 0)
                        return r == -ENOTDIR ? -ENOENT : r;
                *ret_wd = r;
                *ret_up = 0;
                return 0;
        }
        /* The parent of what p names, or the nearest existing directory
         * above it (a symlink below the base is no directory: climbed
         * past). "/" always exists. */
        for (unsigned up = 0; up <= PRIVATE_PATH_UP_MAX; up++) {
                r = watch_at(inotify_fd, &s, p, (long) s.depth - 1 - (long) up);
                if (r == -ENOENT || r == -ENOTDIR)
                        continue;
                if (r < 0)
                        return r;
                *ret_wd = r;
                *ret_up = up;
                return 0;
        }
        return -ENOENT;
}

int private_path_open_store_direct(const char *containers_dir, int *ret_fd) {
        int fd;

        if (!containers_dir || containers_dir[0] != '/')
                return -EINVAL;
        fd = open(containers_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        *ret_fd = fd;
        return 0;
}

int private_path_look(const char *containers_dir, PrivatePath p, const char *id, PrivatePathLook *ret) {
        if (path_source && path_source->look)
                return path_source->look(path_source_userdata, containers_dir, p, id, ret);
        return private_path_look_direct(containers_dir, p, id, ret);
}

int private_path_watch(int inotify_fd, const char *containers_dir, PrivatePath p, const char *id, bool climb,
                       int *ret_wd, unsigned *ret_up) {
        if (path_source && path_source->watch)
                return path_source->watch(path_source_userdata, inotify_fd, containers_dir, p, id, climb, ret_wd,
                                          ret_up);
        return private_path_watch_direct(inotify_fd, containers_dir, p, id, climb, ret_wd, ret_up);
}

int private_path_open_store(const char *containers_dir, int *ret_fd) {
        if (path_source && path_source->open_store)
                return path_source->open_store(path_source_userdata, containers_dir, ret_fd);
        return private_path_open_store_direct(containers_dir, ret_fd);
}

int private_path_exists(const char *containers_dir, PrivatePath p, const char *id) {
        PrivatePathLook l;
        int r = private_path_look(containers_dir, p, id, &l);

        if (r == -ENOENT || r == -ENOTDIR)
                return 0;
        return r < 0 ? r : 1;
}

bool private_path_is_dir(const char *containers_dir, PrivatePath p, const char *id) {
        PrivatePathLook l;

        return private_path_look(containers_dir, p, id, &l) >= 0 && S_ISDIR(l.type);
}
