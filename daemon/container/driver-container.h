/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The driver container the daemon follows: who it is (its identity from
 * the CRI-O store), its init process (pid, and a pidfd whose POLLIN says it
 * exited) and its root (/proc/<pid>/root, where its module tree is). One at
 * a time: following a container forgets the one followed before.
 *
 * Selecting (which containers are candidates), following (pid checked to be
 * in the container's scope, exit watched) and forgetting live here; what an
 * exit means for the swap is the manager's business (the on_exit handler). */

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "container/container-match.h"
#include "config/daemon-config.h"

typedef struct DriverContainer {
        ContainerIdentity *identity;   /* NULL when none is followed */
        pid_t pid;                     /* its init process; 0 when none */
        sd_event_source *exit_source;  /* pidfd POLLIN: its init process exited */
} DriverContainer;

typedef enum DriverContainerFollow {
        DRIVER_CONTAINER_FOLLOWED,     /* now followed (exit watched if the pidfd could be) */
        DRIVER_CONTAINER_NOT_RUNNING,  /* the pid from its pidfile is not running */
        DRIVER_CONTAINER_FOREIGN_PID,  /* the pid runs outside the container's scope (reused) */
        _DRIVER_CONTAINER_FOLLOW_MAX,
        _DRIVER_CONTAINER_FOLLOW_INVALID = -EINVAL,
} DriverContainerFollow;

/* Selecting: whether c is the driver container the configuration names. */
bool driver_container_wanted(const Config *config, const ContainerIdentity *c);

/* Following: checks that pid runs in c's crio scope, forgets the container
 * followed so far, copies c and watches pid's exit (on_exit gets the pidfd
 * event). Returns the outcome, or -ENOMEM (then nothing is followed). */
int driver_container_follow(DriverContainer *d, sd_event *e, const ContainerIdentity *c, pid_t pid,
                            sd_event_io_handler_t on_exit, void *userdata);
/* Forgetting: drops the identity, the pid and the exit watch. */
void driver_container_forget(DriverContainer *d);

/* Whether a container is followed, and whether it is the one with this id. */
bool driver_container_followed(const DriverContainer *d);
/* Its CRI-O id; NULL when none is followed. */
const char *driver_container_id(const DriverContainer *d);
bool driver_container_is(const DriverContainer *d, const char *id);
/* The followed init's pidfd (the exit watch's, not a copy: never closed by
 * the caller), or -EBADF when there is none. */
int driver_container_pidfd(const DriverContainer *d);

/* The module tree of the running kernel in the container's root, as a host
 * path ("/proc/<pid>/root/lib/modules/<release>"); the library applies
 * host_path() to it. -ESRCH when none is followed. */
int driver_container_module_tree(const DriverContainer *d, const char *release, char **ret);
