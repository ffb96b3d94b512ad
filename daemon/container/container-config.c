/* SPDX-License-Identifier: Apache-2.0 */
/* Reading CRI-O's container store: a container's config.json and pidfile,
 * and one look for a running container by name (no watch). Split out of
 * container-store.c, which keeps the watching. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "container/container-config.h"
#include "container/container-started.h"
#include "container/container-time.h"
#include "container/driver-env.h"
#include "host/crio-store-file.h"
#include "host/crio.h"
#include "host/private-path.h"
#include "sandbox/crio-config-job.h"
#include "util/fileio.h"
#include "util/macro.h"

/* CRI-O's creation time; an unparsable one is unknown (0), not an error. */
static uint64_t created_usec(const char *created) {
        uint64_t usec = 0;

        if (created && rfc3339_parse_usec(created, &usec) < 0)
                usec = 0;
        return usec;
}

/* Who the container is, from what config.json said. */
static int identity_from(const char *id, CrioConfig *cfg, ContainerIdentity **ret) {
        _cleanup_(container_identity_freep) ContainerIdentity *c = NULL;

        /* Who the container is: without these it cannot be matched. */
        if (!cfg->pod_namespace || !cfg->pod_name || !cfg->container_name)
                return -ENODATA;

        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->id = strdup(id ?: "");
        if (!c->id)
                return -ENOMEM;
        c->pod_namespace = TAKE_PTR(cfg->pod_namespace);
        c->pod_name = TAKE_PTR(cfg->pod_name);
        c->container_name = TAKE_PTR(cfg->container_name);
        c->pod_uid = TAKE_PTR(cfg->pod_uid);
        c->env = TAKE_PTR(cfg->env);
        c->created_usec = created_usec(cfg->created);
        *ret = TAKE_PTR(c);
        return 0;
}

int container_config_parse(const char *id, const char *json, size_t len, ContainerIdentity **ret) {
        _cleanup_(crio_config_freep) CrioConfig *cfg = NULL;
        int r;

        r = crio_config_parse(json, len, &cfg);
        if (r < 0)
                return r;
        return identity_from(id, cfg, ret);
}

int container_config_read_full(const char *path, const char *id, ContainerIdentity **ret, const char **ret_why) {
        _cleanup_(crio_config_freep) CrioConfig *cfg = NULL;
        int r;

        if (ret_why)
                *ret_why = NULL;
        /* Parsed in the parser child: the file is the tenant's as much as
         * ours. Only the environment keys the daemon decides on come back. */
        r = crio_config_read_confined(path, driver_env_keys, &cfg, ret_why);
        if (r < 0)
                return r;
        return identity_from(id, cfg, ret);
}

int container_config_read(const char *path, const char *id, ContainerIdentity **ret) {
        return container_config_read_full(path, id, ret, NULL);
}

int container_config_read_store(const char *containers_dir, const char *id, ContainerIdentity **ret,
                                const char **ret_why) {
        _cleanup_(crio_config_freep) CrioConfig *cfg = NULL;
        int fd = -EBADF, r;

        if (ret_why)
                *ret_why = NULL;
        r = crio_store_file_open(containers_dir, id, CRIO_STORE_FILE_CONFIG, &fd);
        if (r < 0)
                return r;
        r = crio_config_read_confined_fd(fd, driver_env_keys, &cfg, ret_why);
        if (r < 0)
                return r;
        return identity_from(id, cfg, ret);
}

static int pidfile_parse(const char *text, pid_t *ret) {
        char *end = NULL;
        long v;

        errno = 0;
        v = strtol(text, &end, 10);
        if (errno || end == text || v <= 1 || v > INT32_MAX || (*end && *end != '\n'))
                return -EBADMSG;
        *ret = (pid_t) v;
        return 0;
}

int container_pidfile_read(const char *path, pid_t *ret) {
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r;

        r = read_regular_file(path, CRIO_PIDFILE_MAX, &text, &len);
        if (r < 0)
                return r == -EFBIG ? -EBADMSG : r;
        return pidfile_parse(text, ret);
}

int container_pidfile_read_store(const char *containers_dir, const char *id, pid_t *ret) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r;

        r = crio_store_file_open(containers_dir, id, CRIO_STORE_FILE_PIDFILE, &fd);
        if (r >= 0)
                r = read_regular_fd(fd, CRIO_PIDFILE_MAX, &text, &len);
        if (r < 0)
                return r == -EFBIG ? -EBADMSG : r;
        return pidfile_parse(text, ret);
}

int container_store_find_running(const char *store_dir, const char *container_name, pid_t *ret_pid) {
        _cleanup_free_ char *dir = NULL;
        _cleanup_(closedirp) DIR *d = NULL;
        uint64_t best_created = 0;
        pid_t best = 0;
        struct dirent *de;
        int r, fd = -EBADF;

        if (crio_containers_dir(store_dir, &dir) < 0)
                return -ENOMEM;
        /* Listed through an fd private_path_open_store() opens (the
         * privileged reader: overlay-containers/ is root's 0700). */
        r = private_path_open_store(dir, &fd);
        if (r < 0)
                return r;
        d = fdopendir(fd);
        if (!d) {
                r = -errno;
                close(fd);
                return r;
        }
        while ((de = readdir(d))) {
                _cleanup_(container_identity_freep) ContainerIdentity *c = NULL;
                pid_t pid;

                if (!crio_id_valid(de->d_name))
                        continue;
                /* Started first: config.json costs a parser child (a fork),
                 * the pidfile and the process's state do not. */
                if (container_pidfile_read_store(dir, de->d_name, &pid) < 0 ||
                    container_process_state(pid, de->d_name, NULL) != CONTAINER_PROCESS_STARTED)
                        continue;
                if (container_config_read_store(dir, de->d_name, &c, NULL) < 0 ||
                    !streq(c->container_name, container_name))
                        continue;
                if (!best || c->created_usec > best_created) {
                        best = pid;
                        best_created = c->created_usec;
                }
        }
        if (!best)
                return -ENOENT;
        *ret_pid = best;
        return 0;
}
