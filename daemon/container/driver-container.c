/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "container/driver-container.h"
#include "host/host-root.h"
#include "publish/log.h"
#include "util/macro.h"

bool driver_container_wanted(const Config *config, const ContainerIdentity *c) {
        return container_match(c, config->container_namespace, config->container_name, config->pod_name_prefix);
}

bool driver_container_followed(const DriverContainer *d) {
        return d->identity != NULL;
}

const char *driver_container_id(const DriverContainer *d) {
        return d->identity ? d->identity->id : NULL;
}

bool driver_container_is(const DriverContainer *d, const char *id) {
        return d->identity && id && streq(d->identity->id, id);
}

int driver_container_pidfd(const DriverContainer *d) {
        return d->exit_source ? sd_event_source_get_io_fd(d->exit_source) : -EBADF;
}

void driver_container_forget(DriverContainer *d) {
        d->identity = container_identity_free(d->identity);
        d->pid = 0;
        d->exit_source = sd_event_source_disable_unref(d->exit_source);
}

/* Does the process belong to this container? Guards against a reused pid
 * after the container exited: CRI-O runs it in crio-<id>.scope. */
static bool pid_in_container(pid_t pid, const char *id) {
        _cleanup_free_ char *path = NULL, *line = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        size_t n = 0;

        if (host_pathf(&path, "/proc/%d/cgroup", (int) pid) < 0)
                return false;
        f = fopen(path, "re");
        if (!f)
                return false;
        while (getline(&line, &n, f) > 0)
                if (strstr(line, id))
                        return true;
        return false;
}

/* Without the pidfd we still see the exit through the store and the scopes. */
static void watch_exit(DriverContainer *d, sd_event *e, int *pidfd, sd_event_io_handler_t on_exit, void *userdata) {
        int r;

        r = sd_event_add_io(e, &d->exit_source, *pidfd, EPOLLIN, on_exit, userdata);
        if (r < 0) {
                log_warning_errno(r, "Cannot watch pid %d's exit, relying on the store and scopes: %m", (int) d->pid);
                return;
        }
        (void) sd_event_source_set_io_fd_own(d->exit_source, true);
        TAKE_FD(*pidfd);
        (void) sd_event_source_set_description(d->exit_source, "driver-container-pidfd");
}

int driver_container_follow(DriverContainer *d, sd_event *e, const ContainerIdentity *c, pid_t pid,
                            sd_event_io_handler_t on_exit, void *userdata) {
        _cleanup_close_ int pidfd = -EBADF;

        pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        if (pidfd < 0) {
                log_debug("Container %.12s: pid %d is not running.", c->id, (int) pid);
                return DRIVER_CONTAINER_NOT_RUNNING;
        }
        if (!pid_in_container(pid, c->id)) {
                log_warning("Container %.12s: pid %d from its pidfile is not in crio-%.12s...scope, ignoring it.",
                            c->id, (int) pid, c->id);
                return DRIVER_CONTAINER_FOREIGN_PID;
        }
        if (d->identity && container_earlier_attempt(d->identity, c))
                log_info("Driver container %.12s is kubelet's restart of %.12s in pod %s.", c->id, d->identity->id,
                         c->pod_name);
        else if (d->identity && !streq(d->identity->id, c->id))
                log_info("Following the newer driver container %.12s instead of %.12s.", c->id, d->identity->id);
        driver_container_forget(d);
        d->identity = container_identity_copy(c);
        if (!d->identity)
                return -ENOMEM;
        d->pid = pid;
        watch_exit(d, e, &pidfd, on_exit, userdata);
        log_info("Driver container %.12s (pod %s) runs as pid %d.", c->id, c->pod_name, (int) pid);
        return DRIVER_CONTAINER_FOLLOWED;
}

int driver_container_module_tree(const DriverContainer *d, const char *release, char **ret) {
        char *tree;

        if (!d->identity || d->pid <= 0)
                return -ESRCH;
        if (asprintf(&tree, "/proc/%d/root/lib/modules/%s", (int) d->pid, release) < 0)
                return -ENOMEM;
        *ret = tree;
        return 0;
}
