/* SPDX-License-Identifier: Apache-2.0 */
/* The manager's side of the driver container's life (manager-lifecycle.h). */
#include <stdlib.h>

#include "manager-dispatch.h"
#include "manager-lifecycle.h"
#include "swap/stack-health.h"
#include "swap/swap-context.h"
#include "swap/swap-fabrics.h"
#include "swap/swap-lifecycle.h"
#include "swap/swap-moment.h"
#include "swap/swap-record.h"
#include "swap/swap-snapshot.h"
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

SwapEvent manager_stack_settled(Manager *m) {
        const NodeStack *stack = NULL;
        SwapNodeView node = manager_node_view(m);
        StackHealth h;

        if (swap_snapshot_stack(&m->step, m->ops, &m->loop, &stack) < 0)
                return _SWAP_EVENT_INVALID;
        h = stack_health_check(stack, swap_modules_wanted(m->config, &m->swap));
        if (!stack_health_broken(h) || swap_fabrics_only_node(&node, h))
                return _SWAP_EVENT_INVALID;
        lifecycle_report_broken(&m->swap, &m->follow, h);
        return SWAP_EVENT_STACK_BROKEN;
}
