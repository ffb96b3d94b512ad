/* SPDX-License-Identifier: Apache-2.0 */
/* Which transports of the node's fabrics connections a module tree lacks
 * (see fabrics-build-check.h). */
#include <errno.h>
#include <stdlib.h>

#include "actions/fabrics-build-check.h"
#include "actions/host-tree-warm.h"
#include "host/host-kernel.h"
#include "host/host-root.h"
#include "util/strv.h"

int fabrics_transports_missing_in(const FabricsTopology *t, const ModuleTree *tree, char ***ret) {
        _cleanup_strv_free_ char **needed = NULL, **missing = strv_new_empty();
        int r;

        if (!missing)
                return -ENOMEM;
        r = fabrics_topology_transport_modules(t, &needed);
        if (r < 0)
                return r;
        STRV_FOREACH(m, needed)
                if (!module_tree_find(tree, *m) && !module_tree_builtin(tree, *m) && strv_extend(&missing, *m) < 0)
                        return -ENOMEM;
        *ret = TAKE_PTR(missing);
        return 0;
}

/* The tree asked for, opened as stack_load() opens it (load-plan.c,
 * load_plan_open_trees()): inside the container's root, or a host path, or the
 * host's own /lib/modules/<release> resolved inside the host's root. */
static int open_tree(const LoadOptions *opts, ModuleTree **ret) {
        _cleanup_free_ char *dir = NULL, *release = NULL;
        int r;

        if (opts && opts->module_tree && opts->in_root) {
                if (asprintf(&dir, "(container root)/%s", opts->module_tree) < 0)
                        return -ENOMEM;
                return module_tree_open_at_confined(opts->root_fd, opts->module_tree, dir, ret, NULL);
        }
        if (opts && opts->module_tree) {
                r = host_path(opts->module_tree, &dir);
                return r < 0 ? r : module_tree_open_confined(dir, ret, NULL);
        }
        if ((r = host_kernel_release(&release)) < 0 || (r = host_pathf(&dir, "/lib/modules/%s", release)) < 0)
                return r;
        return host_tree_open(release, dir, ret, NULL);
}

int fabrics_transports_missing(const FabricsTopology *t, const LoadOptions *opts, char ***ret) {
        _cleanup_(module_tree_freep) ModuleTree *tree = NULL;
        int r;

        if (!t || t->n_controllers == 0) /* nothing needed: no tree to open */
                return strv_copy(NULL, ret);
        r = open_tree(opts, &tree);
        if (r < 0)
                return r;
        return fabrics_transports_missing_in(t, tree, ret);
}
