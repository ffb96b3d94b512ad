/* SPDX-License-Identifier: Apache-2.0 */
/* STATUS= for each state (swap-status.h). */
#include "swap/swap-status.h"
#include "util/string-util.h"

char *swap_status_line(SwapState s, const SwapStatusFacts *f) {
        switch (s) {
        case SWAP_STATE_IDLE:
                return strdup_printf("idle: no driver container");
        case SWAP_STATE_CONTAINER_SEEN:
                return strdup_printf("container-seen: %.12s, in-tree stack loaded, waiting", f->container_id ?: "?");
        case SWAP_STATE_BLOCKED:
                return strdup_printf("blocked: %s", f->blockers ?: "namespaces in use");
        case SWAP_STATE_UNLOADED_WAITING_DRIVER:
                return strdup_printf("unloaded, waiting for the driver container's ready file");
        case SWAP_STATE_LOADING:
                return strdup_printf("loading the NVMe stack from the driver container");
        case SWAP_STATE_SWAPPED:
                return strdup_printf("swapped%s", f->missing_namespaces ? ", namespaces still missing" : "");
        case SWAP_STATE_RESTORING:
                return strdup_printf("restoring the in-tree NVMe stack");
        case SWAP_STATE_RESTORED:
                return strdup_printf("restored: in-tree NVMe stack back (%s)", f->message ?: "");
        case SWAP_STATE_FAILED:
                return strdup_printf("failed: %s", f->failure ?: "see the journal");
        case SWAP_STATE_REPAIRING:
                return strdup_printf("repairing: in-tree NVMe stack back until the driver container is ready");
        case SWAP_STATE_WOULD_UNLOAD:
        case SWAP_STATE_WOULD_SWAP: /* observe: the "would" line says it all */
                return strdup_printf("%s: %s", swap_state_to_string(s), f->would ?: "");
        case SWAP_STATE_NO_BUILD:
                return strdup_printf("no-build: driver container %.12s has no NVMe build, in-tree stack kept",
                                     f->container_id ?: "?");
        default:
                return NULL;
        }
}
