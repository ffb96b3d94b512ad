/* SPDX-License-Identifier: Apache-2.0 */

/*
 * Why a flag file and a gate written by root, not a modprobe.d file of ours:
 *
 * - modprobe runs an `install <module> <command>` line as full root every
 *   time that module is asked for, by udev, by a script, or by the kernel
 *   itself through request_module() (an unknown socket family, a file system
 *   type, a crypto algorithm). Module signing does not stop a shell command.
 *   So an identity that may write any modprobe configuration directory is
 *   root. This daemon parses what tenants and the driver image control
 *   (container configs, scripts, module files); its identity must not be
 *   one bug away from root.
 * - So the unit (systemd/nvme-swapguard.service.in) writes, as root and
 *   before we start, a fixed gate: /run/modprobe.d/nvme-swapguard.conf turns
 *   every NVMe host module of the running kernel into "refuse while
 *   /run/nvme-swapguard/reload-blocked exists, else load as usual"
 *   (kmod-helper/lib/actions/reload-gate.h, which also says how kmod applies
 *   it to aliases and dependencies). All we do is create or remove that
 *   flag, in our own RuntimeDirectory=: a takeover of this identity can make
 *   NVMe loads fail or pass, nothing else. /run/modprobe.d and the rest of
 *   /run are read-only in our sandbox, and we hold no CAP_DAC_OVERRIDE.
 * - Our own loads (stack_load in the guard library: NVIDIA's build from the
 *   container's tree, or the in-tree stack on restore) insert modules by path
 *   with libkmod's kmod_module_insert_module(), which applies no install
 *   command. We still remove the flag before a restore, so that whatever the
 *   library does the in-tree stack can come back.
 * - The flag goes on before the unload and off at restore, when the swap is
 *   done, and on every exit path of the daemon (manager_free); a SIGKILL
 *   leaves it, and the unit's ExecStopPost= removes it (with the gate) as
 *   root; the next start's reconcile puts it back or not depending on the
 *   state. The flag and the gate are both gone at reboot (/run).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "host/host-root.h"
#include "swap/reload-block.h"
#include "util/fileio.h"
#include "util/macro.h"

int reload_block_install(const char *const *modules) {
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int fd = -EBADF;
        int r;

        (void) modules; /* the gate, written by root, names every NVMe host module */
        r = host_path(RELOAD_BLOCK_PATH, &path);
        if (r < 0)
                return r;
        /* Empty: only its existence counts. O_NOFOLLOW: never through a link. */
        fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0)
                return -errno;
        return reload_block_gate_present() ? 0 : -ENOENT;
}

int reload_block_remove(void) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = host_path(RELOAD_BLOCK_PATH, &path);
        if (r < 0)
                return r;
        if (unlink(path) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}

bool reload_block_installed(void) {
        _cleanup_free_ char *path = NULL;

        return host_path(RELOAD_BLOCK_PATH, &path) >= 0 && path_exists(path) > 0;
}

bool reload_block_gate_present(void) {
        _cleanup_free_ char *path = NULL;

        return host_path(RELOAD_GATE_PATH, &path) >= 0 && path_exists(path) > 0;
}
