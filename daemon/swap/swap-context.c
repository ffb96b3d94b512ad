/* SPDX-License-Identifier: Apache-2.0 */
#include "publish/log.h"
#include "swap/pod-end.h"
#include "swap/swap-context.h"
#include "swap/swap-snapshot.h"
#include "swap/swap-moment.h"
#include "util/strv.h"

char *const *swap_modules_wanted(const Config *c, const SwapMachine *s) {
        return c->modules ?: s->record.modules_before;
}

/* The replacement counts as loaded only once it drives the PCIe namespaces:
 * NVIDIA's nvme_core alone (a daemon killed between loading it and nvme,
 * found by tests/faults, row kill:loading) is not a swap to report and keep,
 * but a stack to unload and load again. */
static bool replacement_complete(const Config *c, const SwapMachine *s, const NodeStack *stack) {
        const NodeModule *nvme = node_stack_find(stack, "nvme");

        if (!node_stack_replacement_loaded(stack))
                return false;
        return !strv_contains(swap_modules_wanted(c, s), "nvme") || (nvme && nvme->origin != NODE_ORIGIN_ABSENT);
}

/* The driver container's part (swap-lifecycle.c decides it). */
static void lifecycle_context(const SwapFollow *f, SwapContext *ctx) {
        ctx->container_running = driver_container_followed(&f->container);
        ctx->build_ruled_out = ctx->container_running && f->build_ruled_out;
        ctx->earlier_build_loaded = ctx->container_running && f->earlier_build && ctx->replacement_loaded;
        pod_end_context(&f->pod_end, ctx); /* the pod's end */
}

void swap_context_noted(SwapFollow *f, const SwapContext *ctx) {
        if (!ctx->replacement_loaded)
                f->earlier_build = false;
}

int swap_read_context(const SwapContextInputs *in, const SwapNodeView *node, SwapContext *ret) {
        const NodeStack *stack = NULL;
        int r;

        r = swap_snapshot_stack(node->step, node->ops, node->loop, &stack);
        if (r < 0)
                return log_error_errno(r, "Cannot read the NVMe module stack: %m");
        *ret = (SwapContext) {
                .unload_at = swap_moment_unload_at(in->config, in->follow),
                .load_from_container = in->config->load_from_container,
                .ready_present = in->ready_present,
                .stack_loaded = node_stack_any_loaded(stack),
                .replacement_loaded = replacement_complete(in->config, in->swap, stack),
                .stopping = in->swap->stopping,
                .observe = node->ops->observe,
        };
        lifecycle_context(in->follow, ret);
        return 0;
}
