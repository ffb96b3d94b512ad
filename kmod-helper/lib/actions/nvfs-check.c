/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions/module-tree.h"
#include "actions/nvfs-check.h"
#include "actions/stack-load.h"
#include "host/host-kernel.h"
#include "host/host-root.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/strv.h"

NvfsCheck *nvfs_check_free(NvfsCheck *c) {
        if (!c)
                return NULL;
        free(c->ko_path);
        strv_free(c->wanted);
        free(c->exported);
        free(c);
        return NULL;
}

/* The nvidia_fs file of one tree (an openable path); NULL when absent.
 * A container's tree (not the host's) is indexed in the parser child. */
static int find_in_tree(const char *dir, bool confined, char **ret) {
        _cleanup_(module_tree_freep) ModuleTree *t = NULL;
        const ModuleTreeEntry *e;
        int r;

        *ret = NULL;
        r = confined ? module_tree_open_confined(dir, &t, NULL) : module_tree_open(dir, &t);
        if (r < 0)
                return r == -ENOMEM ? r : 0; /* no such tree: look elsewhere */
        e = module_tree_find(t, "nvidia_fs");
        if (e && !(*ret = strdup(e->path)))
                return -ENOMEM;
        return 0;
}

static int find_module_file(char *const *trees, char **ret) {
        _cleanup_free_ char *release = NULL, *host = NULL;
        int r;

        *ret = NULL;
        if (host_kernel_release(&release) >= 0 && host_pathf(&host, "/lib/modules/%s", release) >= 0) {
                r = find_in_tree(host, false, ret);
                if (r < 0 || *ret)
                        return r;
        }
        STRV_FOREACH(t, trees) {
                _cleanup_free_ char *dir = NULL;

                r = host_path(*t, &dir);
                if (r < 0)
                        return r;
                r = find_in_tree(dir, true, ret);
                if (r < 0 || *ret)
                        return r;
        }
        return 0;
}

static int nvme_exported(char **ret) {
        _cleanup_strv_free_ char **hooks = NULL;
        int r;

        r = kallsyms_gds_hooks_read(&hooks);
        if (r < 0)
                return r;
        return gds_hooks_generations_of(hooks, "nvme", ret);
}

static int check(char *const *trees, bool exported_known, const char *exported, NvfsCheck **ret) {
        _cleanup_(nvfs_check_freep) NvfsCheck *c = calloc(1, sizeof(*c));
        _cleanup_free_ char *sys = NULL;
        int r;

        if (!c)
                return -ENOMEM;
        r = host_path("/sys/module/nvidia_fs", &sys);
        if (r < 0)
                return r;
        r = path_exists(sys);
        if (r < 0)
                return r;
        c->loaded = r > 0;
        if (!exported_known)
                r = nvme_exported(&c->exported);
        else if (exported && !(c->exported = strdup(exported)))
                r = -ENOMEM;
        if (r < 0)
                return r;
        if (c->loaded) {
                r = find_module_file(trees, &c->ko_path);
                if (r < 0)
                        return r;
        }
        if (c->ko_path) {
                r = gds_wanted_generations_read(c->ko_path, &c->wanted);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        c->read_error = -r;
        }
        c->match = c->loaded ? gds_generations_match(c->exported, c->wanted) : GDS_MATCH_UNKNOWN;
        *ret = TAKE_PTR(c);
        return 0;
}

int nvfs_check(char *const *trees, NvfsCheck **ret) {
        return check(trees, false, NULL, ret);
}

int nvfs_check_exported(char *const *trees, const char *exported, NvfsCheck **ret) {
        return check(trees, true, exported, ret);
}

static char *join_commas(char *const *l) {
        char *s = strdup("");

        STRV_FOREACH(i, l) {
                char *n = NULL;

                if (!s || asprintf(&n, "%s%s%s", s, *s ? "," : "", *i) < 0) {
                        free(s);
                        return NULL;
                }
                free(s);
                s = n;
        }
        return s;
}

char *nvfs_check_describe(const NvfsCheck *c) {
        _cleanup_free_ char *wanted = NULL;
        char *s = NULL;
        int r;

        if (!c->loaded)
                r = asprintf(&s, "nvidia_fs is not loaded; nvme exports GDS hooks %s",
                             c->exported ?: "none");
        else if (!c->ko_path)
                r = asprintf(&s, "nvidia_fs is loaded but its module file was found neither in the host's tree "
                             "nor in an nvidia-fs-ctr container: cannot tell which hook generation it asks for");
        else if (c->read_error == EPROTONOSUPPORT)
                /* RHEL 9 and Debian 6.12 compress their modules; the hooks are
                 * names inside the image, which we do not decompress to look
                 * for (the bound on what we decompress). */
                r = asprintf(&s, "%s is compressed: its GDS hook generation is unknown (it is not decompressed "
                             "to read it); `modinfo %s` and its symbols show it", c->ko_path, c->ko_path);
        else if (c->read_error)
                r = asprintf(&s, "cannot read %s (%s): cannot tell which hook generation nvidia_fs asks for",
                             c->ko_path, strerror(c->read_error));
        else {
                wanted = c->wanted && c->wanted[0] ? join_commas(c->wanted) : strdup("none");
                if (!wanted)
                        return NULL;
                switch (c->match) {
                case GDS_MATCH_SAME:
                        r = asprintf(&s, "nvidia_fs asks for GDS hooks %s, nvme exports %s: they match", wanted,
                                     c->exported);
                        break;
                case GDS_MATCH_NO_HOOKS:
                        r = asprintf(&s, "nvidia_fs asks for GDS hooks %s but nvme exports none: GDS is not "
                                     "patched in (the in-tree nvme, or a build without GDS support)", wanted);
                        break;
                case GDS_MATCH_DIFFERENT:
                        r = asprintf(&s, "nvidia_fs asks for GDS hooks %s but nvme exports %s: GDS runs in "
                                     "compatibility mode. Remedy: use an nvidia-fs built for the same DOCA "
                                     "release as the driver container (gds-nvidia-fs #87)", wanted,
                                     c->exported ?: "none");
                        break;
                default:
                        r = asprintf(&s, "%s asks for no nvme GDS hook by name: cannot compare", c->ko_path);
                        break;
                }
        }
        return r < 0 ? NULL : s;
}
