/* SPDX-License-Identifier: Apache-2.0 */
/* The node labels' file as the daemon writes it (node-labels.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host-root.h"
#include "publish/node-labels.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/string-util.h"

bool node_labels_gds_ready(SwapState state, SwapMode mode, const char *gds_match, bool namespaces_missing) {
        return mode == SWAP_MODE_ENFORCE && swap_state_build_loaded(state) && gds_match && streq(gds_match, "same") &&
               !namespaces_missing;
}

const char *node_labels_hooks_value(SwapState state, const char *exported) {
        /* Outside swapped the in-tree stack (or none) is loaded: it has no
         * hooks. The record's generations are those of the last swap. */
        if (!swap_state_build_loaded(state))
                return "none";
        if (!exported)
                return "unknown";
        if (streq(exported, "v1,v2") || streq(exported, "v2,v1"))
                return "v1-v2";
        if (streq(exported, "v1") || streq(exported, "v2") || streq(exported, "none"))
                return exported;
        return "unknown";
}

int node_labels_to_text(const NodeLabelsFacts *f, char **ret) {
        const char *state = swap_state_to_string(f->state), *mode = swap_mode_to_string(f->mode);
        const char *hooks = node_labels_hooks_value(f->state, f->gds_hooks);
        char when[32];
        char *text;
        int r;

        r = node_labels_format_time(f->expiry_usec, when, sizeof(when));
        if (r < 0)
                return r;
        if (f->stopped)
                text = strdup_printf("# nvme-swapguard stopped: no labels (nvme-swapguard-labels.service publishes this).\n"
                                     NODE_LABELS_DIRECTIVE_PREFIX NODE_LABELS_EXPIRY_KEY "=%s\n",
                                     when);
        else {
                if (!state || !mode || !node_label_value_allowed(NODE_LABEL_STATE, state) ||
                    !node_label_value_allowed(NODE_LABEL_MODE, mode) || !node_label_value_allowed(NODE_LABEL_GDS_HOOKS, hooks))
                        return -EINVAL;
                /* The directive first: nfd-worker applies it to the lines after it. */
                text = strdup_printf("# nvme-swapguard: this node's NVMe stack swap, for Node Feature Discovery.\n"
                                     "# Rewritten on every change and every %us; nvme-swapguard-labels.service publishes it.\n"
                                     NODE_LABELS_DIRECTIVE_PREFIX NODE_LABELS_EXPIRY_KEY "=%s\n"
                                     NODE_LABEL_STATE "=%s\n" NODE_LABEL_GDS_READY "=%s\n" NODE_LABEL_GDS_HOOKS "=%s\n"
                                     NODE_LABEL_MODE "=%s\n",
                                     NODE_LABELS_REFRESH_SEC, when, state, f->gds_ready ? "true" : "false", hooks, mode);
        }
        if (!text)
                return -ENOMEM;
        *ret = text;
        return 0;
}

int node_labels_write(const char *text) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = host_path(NODE_LABELS_SOURCE, &path);
        if (r < 0)
                return r;
        return write_file_atomic(path, text, 0644);
}

int node_labels_remove(void) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = host_path(NODE_LABELS_SOURCE, &path);
        if (r < 0)
                return r;
        if (unlink(path) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}

int node_labels_directory_exists(const char *dir) {
        _cleanup_free_ char *path = NULL;
        struct stat st;
        int r;

        r = host_path(dir, &path);
        if (r < 0)
                return r;
        if (stat(path, &st) < 0)
                return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
        return S_ISDIR(st.st_mode);
}
