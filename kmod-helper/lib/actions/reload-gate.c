/* SPDX-License-Identifier: Apache-2.0 */
/* The reload gate (see reload-gate.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actions/host-tree-warm.h"
#include "actions/reload-gate.h"
#include "host/host-kernel.h"
#include "host/host-root.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

static bool under_nvme_dirs(const char *relpath) {
        static const char *const dirs[] = { "drivers/nvme/host/", "drivers/nvme/common/" };

        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                const char *p = relpath;

                while ((p = strstr(p, dirs[i]))) {
                        /* a whole path component: "kernel/drivers/..." or "drivers/..." */
                        if (p == relpath || p[-1] == '/')
                                return !strchr(p + strlen(dirs[i]), '/');
                        p++;
                }
        }
        return false;
}

static bool plain_chars(const char *s, const char *extra) {
        if (!s || !*s)
                return false;
        for (const char *p = s; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
                      *p == '-' || (extra && strchr(extra, *p))))
                        return false;
        return true;
}

int reload_gate_modules(const ModuleTree *t, char ***ret) {
        _cleanup_strv_free_ char **names = strv_new_empty();

        if (!names)
                return -ENOMEM;
        for (size_t i = 0; t && i < t->n_entries; i++) {
                const ModuleTreeEntry *e = &t->entries[i];

                if (!e->relpath || !under_nvme_dirs(e->relpath) || !plain_chars(e->name, NULL) ||
                    strv_contains(names, e->name))
                        continue;
                if (strv_extend(&names, e->name) < 0)
                        return -ENOMEM;
        }
        strv_sort(names);
        *ret = TAKE_PTR(names);
        return 0;
}

int reload_gate_render(char *const *modules, const char *modprobe, char **ret) {
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        FILE *f;

        if (!modprobe || modprobe[0] != '/' || !plain_chars(modprobe, "/."))
                return -EINVAL;
        f = open_memstream(&text, &size);
        if (!f)
                return -ENOMEM;
        fputs("# Written by nvme-swapguard-kmod reload-block install-gate (as root, before the\n"
              "# daemon starts); removed when the daemon's unit stops. Each NVMe host module\n"
              "# of this kernel loads as usual unless " RELOAD_GATE_FLAG " exists:\n"
              "# the daemon creates that flag while the in-tree stack is unloaded and the\n"
              "# driver container's build is not loaded yet. The daemon chooses nothing here.\n",
              f);
        STRV_FOREACH(m, modules)
                fprintf(f, "install %s test ! -e " RELOAD_GATE_FLAG " && %s --ignore-install %s $CMDLINE_OPTS\n", *m,
                        modprobe, *m);
        if (fclose(f) != 0)
                return -ENOMEM;
        *ret = TAKE_PTR(text);
        return 0;
}

int reload_gate_find_modprobe(const char **ret) {
        static const char *const candidates[] = { "/sbin/modprobe", "/usr/sbin/modprobe", "/bin/modprobe",
                                                  "/usr/bin/modprobe" };

        for (size_t i = 0; i < ELEMENTSOF(candidates); i++) {
                _cleanup_free_ char *p = NULL;
                struct stat st;

                if (host_path(candidates[i], &p) < 0)
                        return -ENOMEM;
                if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111)) {
                        *ret = candidates[i];
                        return 0;
                }
        }
        return -ENOENT;
}

int reload_gate_install(char ***ret_modules) {
        _cleanup_(module_tree_freep) ModuleTree *tree = NULL;
        _cleanup_free_ char *release = NULL, *tree_dir = NULL, *dir = NULL, *path = NULL, *text = NULL;
        _cleanup_strv_free_ char **modules = NULL;
        const char *modprobe;
        int r;

        if ((r = host_kernel_release(&release)) < 0 || (r = host_pathf(&tree_dir, "/lib/modules/%s", release)) < 0)
                return r;
        r = host_tree_open(release, tree_dir, &tree, NULL);
        if (r < 0)
                return r;
        r = reload_gate_modules(tree, &modules);
        if (r < 0)
                return r;
        r = reload_gate_find_modprobe(&modprobe);
        if (r < 0)
                return r;
        r = reload_gate_render(modules, modprobe, &text);
        if (r < 0)
                return r;
        if ((r = host_path("/run/modprobe.d", &dir)) < 0 || (r = host_path(RELOAD_GATE_PATH, &path)) < 0)
                return r;
        /* /run/modprobe.d is kmod's documented runtime directory: creating it is expected.
         * 0755 whatever the umask (the unit's UMask=0077 applies to its
         * ExecStartPre=+): the daemon, without CAP_DAC_READ_SEARCH once its
         * privileged reader is forked, looks for the gate there, and a 0700
         * directory made it report the gate missing at every unload. */
        if (mkdir(dir, 0755) == 0) {
                if (chmod(dir, 0755) < 0)
                        return -errno;
        } else if (errno != EEXIST)
                return -errno;
        r = write_file_atomic(path, text, 0644);
        if (r < 0)
                return r;
        if (ret_modules)
                *ret_modules = TAKE_PTR(modules);
        return 0;
}

int reload_gate_remove(void) {
        static const char *const paths[] = { RELOAD_GATE_PATH, RELOAD_GATE_FLAG };

        for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
                _cleanup_free_ char *p = NULL;
                int r = host_path(paths[i], &p);

                if (r < 0)
                        return r;
                if (unlink(p) < 0 && errno != ENOENT)
                        return -errno;
        }
        return 0;
}
