/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* "A pid" means "created", not "started": CRI-O's OCI runtime writes the
 * pidfile at create, while the process still waits in the runtime's init
 * (runc init, crun) for the start; only StartContainer makes it exec the
 * entrypoint (docs: shared/crio/README.md). A container counts as started
 * once its process no longer runs the runtime's binary. */

#include <stdbool.h>
#include <sys/types.h>

/* Pure: whether the target of /proc/<pid>/exe is an OCI runtime's own
 * binary: runc (or its sealed copy "memfd:runc_cloned:/proc/self/exe"),
 * crun, runsc, kata-runtime, youki. A driver container's entrypoint is none
 * of them. */
bool exe_is_runtime_init(const char *exe_target);

typedef enum ContainerProcess {
        CONTAINER_PROCESS_STARTED,  /* runs its entrypoint */
        CONTAINER_PROCESS_CREATED,  /* still the runtime's init, waiting for the start */
        CONTAINER_PROCESS_GONE,     /* no such process */
} ContainerProcess;

/* Reads host_path("/proc/<pid>/exe"). An unreadable link (EACCES) counts as
 * started: the pidfile, as before, is then the best we know. */
ContainerProcess container_process_state(pid_t pid);
