/* SPDX-License-Identifier: Apache-2.0 */
/* The manager's side of the driver container's life (manager-lifecycle.h). */
#include <stdlib.h>

#include "manager-dispatch.h"
#include "manager-lifecycle.h"
#include "swap/swap-fabrics.h"
#include "swap/swap-lifecycle.h"
#include "swap/swap-moment.h"
#include "util/macro.h"

void manager_container_followed(Manager *m) {
        _cleanup_free_ char *tree = NULL;
        TreeBuild build;
        SwapNodeView node = manager_node_view(m);

        if (!driver_container_id(&m->follow.container))
                return;
        m->ready_present = lifecycle_container_followed(&m->swap, &m->follow, m->config, &node);
        if (lifecycle_container_env(&m->swap, &m->follow, &tree, &build) <= 0)
                return;
        swap_fabrics_container_followed(&m->follow, &m->swap, m->ops, tree, build); /* a transport it lacks */
        swap_moment_decide(&m->follow, &m->swap, m->config, &node);
}

void manager_nvfs_changed(Manager *m) {
        SwapNodeView node = manager_node_view(m);

        if (lifecycle_nvfs_changed(&m->swap, &m->follow, m->config, &node))
                manager_save(m, SWAP_SAVE_CHANGED);
}
