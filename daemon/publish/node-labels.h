/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The node's labels for Node Feature Discovery, as the daemon writes them:
 * /run/nvme-swapguard/node-labels (report/node-labels.h has the names, the
 * grammar and the expiry). The daemon cannot write features.d (root's, and
 * the daemon holds no CAP_DAC_OVERRIDE): nvme-swapguard-labels.path sees
 * the file change and nvme-swapguard-labels.service checks it line by line
 * and publishes it there (`nvme-swapguard-kmod labels publish`).
 *
 * Four labels, each prefixed feature.node.kubernetes.io/ on the node:
 *   nvme-swapguard.state      the swap state (swap-vocabulary.h's names)
 *   nvme-swapguard.gds-ready  true only in enforce mode, swapped, the GDS
 *                             hooks the loaded nvme exports being the ones
 *                             nvidia_fs asks for, every namespace back
 *   nvme-swapguard.gds-hooks  the hooks the loaded nvme exports: none, v1,
 *                             v2, v1-v2 (both), unknown
 *   nvme-swapguard.mode       enforce / observe (observe never says ready:
 *                             its state is would-unload / would-swap) */

#include <stdbool.h>
#include <stdint.h>

#include "report/node-labels.h"
#include "vocabulary/swap-vocabulary.h"

typedef struct NodeLabelsFacts {
        SwapState state;
        SwapMode mode;
        bool gds_ready;          /* node_labels_gds_ready() */
        const char *gds_hooks;   /* what the loaded nvme exports, as the state file says it ("v1",
                                    "v1,v2", "none"); NULL: not known */
        uint64_t expiry_usec;    /* CLOCK_REALTIME */
        bool stopped;            /* the daemon stops: no label, the expiry the moment of the stop */
} NodeLabelsFacts;

/* GDS work can run on the node: enforce mode, swapped, the GDS hooks the
 * loaded build exports are those nvidia_fs asks for (gds_match "same":
 * daemon-state.h), and no namespace is still missing. */
bool node_labels_gds_ready(SwapState state, SwapMode mode, const char *gds_match, bool namespaces_missing);
/* The gds-hooks label's value for what nvme exports ("v1,v2" -> "v1-v2"). */
const char *node_labels_hooks_value(SwapState state, const char *exported);
/* Pure: the file's text. -EINVAL for a value outside Kubernetes' label syntax. */
int node_labels_to_text(const NodeLabelsFacts *f, char **ret);
/* Through host_path(): replaces NODE_LABELS_SOURCE atomically, 0644 (root's
 * copier reads it; nothing in it is secret). -ENOENT: no runtime directory. */
int node_labels_write(const char *text);
/* Removes it (labels off); 0 when there was none. */
int node_labels_remove(void);
/* Whether dir (a host path) is a directory: 1, 0 (absent, or not a
 * directory), or -errno. */
int node_labels_directory_exists(const char *dir);
