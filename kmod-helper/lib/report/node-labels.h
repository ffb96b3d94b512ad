/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The node's labels for Node Feature Discovery (NFD): the daemon writes
 * them to its own runtime directory (daemon/publish/node-labels.c), and
 * `nvme-swapguard-kmod labels publish` (root, run by
 * nvme-swapguard-labels.service) checks every line again and writes
 * features.d/nvme-swapguard, which nfd-worker's local source turns into
 * node labels. The names, the file's place and the grammar both sides
 * follow are defined here once.
 *
 * The grammar is NFD's (source/local/local.go): one `name=value` per line,
 * lines starting with '#' are comments except the directives
 * `# +<key>=<value>`, of which `# +expiry-time=<RFC3339>` makes nfd-worker
 * drop the lines after it once that time has passed (the directive applies
 * to the lines that follow it: it comes first). An unprefixed name gets
 * feature.node.kubernetes.io/, which nfd-master accepts without
 * configuration; names and values follow Kubernetes' label syntax
 * (pkg/apis/nfd/validate). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/daemon-state.h"

/* The daemon's file, in its RuntimeDirectory= (the path unit watches it). */
#define NODE_LABELS_SOURCE DAEMON_STATE_DIR "/node-labels"
/* Where nfd-worker reads local feature files on the host, and our file there. */
#define NODE_LABELS_DIR_DEFAULT "/etc/kubernetes/node-feature-discovery/features.d"
#define NODE_LABELS_FILE_NAME "nvme-swapguard"

/* The labels (each with feature.node.kubernetes.io/ in front on the node). */
#define NODE_LABEL_STATE "nvme-swapguard.state"         /* the swap state's name */
#define NODE_LABEL_GDS_READY "nvme-swapguard.gds-ready" /* true / false */
#define NODE_LABEL_GDS_HOOKS "nvme-swapguard.gds-hooks" /* none, v1, v2, v1-v2, unknown */
#define NODE_LABEL_MODE "nvme-swapguard.mode"           /* enforce / observe */
#define NODE_LABELS_NAMESPACE "feature.node.kubernetes.io/"
#define NODE_LABELS_MAX 4

/* Expiry: nfd-worker re-reads the file every 60 s (and at once on a change
 * of features.d), so labels of a stopped or crashed daemon go within
 * NODE_LABELS_EXPIRY_SEC + 60 s of its last refresh. The daemon refreshes
 * every NODE_LABELS_REFRESH_SEC: three refreshes fit in one expiry, so one
 * late or failed copy (a busy node, a copier that failed once) does not
 * make a healthy node lose its labels. The copier refuses an expiry further
 * ahead than NODE_LABELS_EXPIRY_MAX_SEC: a file that would outlive the
 * daemon for long is not published. */
#define NODE_LABELS_EXPIRY_SEC 600U
#define NODE_LABELS_REFRESH_SEC 180U
#define NODE_LABELS_EXPIRY_MAX_SEC 900U

#define NODE_LABELS_DIRECTIVE_PREFIX "# +"
#define NODE_LABELS_EXPIRY_KEY "expiry-time"
/* Far above what the daemon writes (some 400 bytes), far below NFD's 64 KiB. */
#define NODE_LABELS_FILE_MAX 4096U
/* Kubernetes: a label name (after the prefix) and a value are at most 63 characters. */
#define NODE_LABEL_VALUE_MAX 63U

/* Kubernetes' label value syntax: empty, or at most 63 of [A-Za-z0-9._-],
 * beginning and ending with an alphanumeric. Names the same, never empty. */
bool node_label_value_valid(const char *v);
bool node_label_name_valid(const char *v);
/* Whether name is one of ours, and value one it may have. */
bool node_label_known(const char *name);
bool node_label_value_allowed(const char *name, const char *value);

/* RFC 3339 in UTC, seconds: "2026-12-05T14:20:00Z" (buf of at least 21). */
int node_labels_format_time(uint64_t usec, char *buf, size_t size);
/* RFC 3339 as Go's time.RFC3339 layout parses it: a 'T', seconds with an
 * optional fraction, 'Z' or an offset +hh:mm / -hh:mm. -EINVAL otherwise. */
int node_labels_parse_time(const char *s, uint64_t *ret_usec);

typedef struct NodeLabelsFile {
        uint64_t expiry_usec;                     /* CLOCK_REALTIME */
        size_t n;
        struct {
                const char *name;                 /* one of the NODE_LABEL_* constants */
                char value[NODE_LABEL_VALUE_MAX + 1];
        } labels[NODE_LABELS_MAX];
} NodeLabelsFile;

/* Checks a file the daemon wrote, trusting nothing in it: every line blank,
 * a comment, the one expiry directive (before any label, within
 * NODE_LABELS_EXPIRY_MAX_SEC of now_usec; one in the past is fine: nothing
 * is published then), or one of our labels (each once) with a value it may
 * have. No other directive. 0 with *ret; -EBADMSG with *ret_line (1-based;
 * 0: the whole file) and *ret_reason (a static string; never the line's
 * text, which may be anything) set. */
int node_labels_check(const char *text, size_t size, uint64_t now_usec, NodeLabelsFile *ret,
                      unsigned *ret_line, const char **ret_reason);
/* The text the copier publishes: its own header, the expiry directive and,
 * unless it has passed at now_usec, the labels. */
int node_labels_file_to_text(const NodeLabelsFile *f, uint64_t now_usec, char **ret);
