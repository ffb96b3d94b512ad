/* SPDX-License-Identifier: Apache-2.0 */

/*
 * Why a modprobe.d file, and why it does not stop our own loads:
 *
 * - The kernel asks for modules by alias (udev runs `modprobe pci:v...` on a
 *   PCI add or coldplug; request_module() runs /sbin/modprobe). kmod's
 *   "blacklist <m>" makes alias lookups skip <m>, which covers udev and
 *   request_module(). "install <m> /bin/false" covers an explicit
 *   `modprobe <m>` by name (blacklist does not), and makes it fail loudly
 *   instead of silently loading the in-tree build.
 * - /run/modprobe.d is read by kmod on every call and vanishes at reboot:
 *   a reboot always comes back to the normal in-tree stack, and we never
 *   touch /etc (the Machine Config daemon owns it on RHCOS).
 * - Our own loads (stack_load in the guard library: NVIDIA's build from the
 *   container's tree, or the in-tree stack on restore) insert modules by path
 *   with libkmod's kmod_module_insert_module(), which applies neither
 *   blacklists nor install commands: those belong to modprobe's alias/name
 *   resolution, not to inserting a given .ko. We still remove the file
 *   before a restore, so that whatever the library does the in-tree stack
 *   can come back.
 * - The file is removed at restore, when the swap is done, and on every exit
 *   path of the daemon (manager_free); a SIGKILL leaves it, and the next
 *   start's reconcile puts it back or removes it depending on the state (the
 *   unit also removes it in ExecStopPost=).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host/host-root.h"
#include "swap/reload-block.h"
#include "util/fileio.h"
#include "util/macro.h"

int reload_block_render(const char *const *modules, char **ret) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        FILE *f;

        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        fputs("# Written by nvme-swapguard while the in-tree NVMe stack is unloaded and the\n"
              "# driver container's build is not loaded yet. Removed when that is over.\n",
              f);
        for (const char *const *m = modules; m && *m; m++)
                fprintf(f, "blacklist %s\ninstall %s /bin/false\n", *m, *m);
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(text);
        return 0;
}

int reload_block_install(const char *const *modules) {
        _cleanup_free_ char *dir = NULL, *path = NULL, *text = NULL;
        int r;

        r = host_path("/run/modprobe.d", &dir);
        if (r < 0)
                return r;
        r = host_path(RELOAD_BLOCK_PATH, &path);
        if (r < 0)
                return r;
        /* /run/modprobe.d is kmod's documented runtime directory: creating it is expected. */
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        r = reload_block_render(modules, &text);
        if (r < 0)
                return r;
        return write_file_atomic(path, text, 0644);
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
