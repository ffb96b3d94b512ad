/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "container-started.h"
#include "host/host-root.h"
#include "util/macro.h"

bool exe_is_runtime_init(const char *exe_target) {
        static const char *const runtimes[] = { "runc", "crun", "runsc", "kata-runtime", "youki" };
        char base[PATH_MAX];
        const char *slash;
        size_t n;

        if (!exe_target)
                return false;
        /* runc >= 1.1.12 runs from a sealed memfd copy of itself. */
        if (strstr(exe_target, "runc_cloned:") || strstr(exe_target, "memfd:runc"))
                return true;
        slash = strrchr(exe_target, '/');
        snprintf(base, sizeof(base), "%s", slash ? slash + 1 : exe_target);
        /* A replaced binary reads "<path> (deleted)". */
        n = strlen(base);
        if (n > strlen(" (deleted)") && streq(base + n - strlen(" (deleted)"), " (deleted)"))
                base[n - strlen(" (deleted)")] = '\0';
        for (size_t i = 0; i < ELEMENTSOF(runtimes); i++)
                if (streq(base, runtimes[i]))
                        return true;
        return false;
}

ContainerProcess container_process_state(pid_t pid) {
        _cleanup_free_ char *path = NULL;
        char target[PATH_MAX];
        ssize_t n;

        if (host_pathf(&path, "/proc/%d/exe", (int) pid) < 0)
                return CONTAINER_PROCESS_STARTED;
        n = readlink(path, target, sizeof(target) - 1);
        if (n < 0) {
                /* A fake root has no /proc/<pid>/exe unless the test scripts one. */
                if ((errno == ENOENT || errno == ESRCH) && host_root_is_real())
                        return CONTAINER_PROCESS_GONE;
                return CONTAINER_PROCESS_STARTED; /* cannot tell: as the pidfile says */
        }
        target[n] = '\0';
        return exe_is_runtime_init(target) ? CONTAINER_PROCESS_CREATED : CONTAINER_PROCESS_STARTED;
}
