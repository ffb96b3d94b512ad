/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* /var/lib/nvme-swapguard/nvme-swapguard.prom: the swap's state in the
 * Prometheus text format, for a stock node-exporter's textfile collector
 * (monitoring/, docs/MONITORING.md). The daemon has no network
 * (PrivateNetwork= in its unit): it writes, the exporter serves.
 *
 * Under /var/lib (the unit's StateDirectory=), not /run: a directory that
 * goes with each stop (RuntimeDirectory=) would leave the exporter pod's
 * bind mount of it stale once recreated, and the counters are read back
 * from this file at the next start. Replaced atomically (temporary file,
 * not *.prom, then rename): the collector reads only *.prom and never
 * sees half a file.
 *
 * Names follow Prometheus's rules: one prefix, a state-set for the state
 * (one series per state, the current one 1, as kube_pod_status_phase),
 * Unix timestamps (*_timestamp_seconds) rather than ages, strings in
 * *_info series, counters *_total, and no label whose values grow with
 * the node's life (no namespace, process or device): some 60 series a
 * node. No sample carries a timestamp (the collector refuses them). */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "node/node-ops.h"
#include "vocabulary/swap-vocabulary.h"

#define METRICS_DIR "/var/lib/nvme-swapguard"
#define METRICS_FILE METRICS_DIR "/nvme-swapguard.prom"
#define METRICS_PREFIX "nvme_swapguard_"
/* Anything far larger than what we write is not our file. */
#define METRICS_FILE_MAX (256U * 1024U)

/* What blocks an unload, by kind (the kind label). */
typedef enum MetricsBlockerKind {
        METRICS_BLOCKER_MOUNT,                 /* mounted in the host's mount namespace */
        METRICS_BLOCKER_OTHER_NAMESPACE_MOUNT, /* mounted only in another mount namespace */
        METRICS_BLOCKER_SWAP,
        METRICS_BLOCKER_HOLDER,                /* device-mapper, LVM, md */
        METRICS_BLOCKER_OPEN,                  /* held open by a process */
        METRICS_BLOCKER_KERNEL_CLAIM,          /* claimed in the kernel, nothing above says by whom */
        METRICS_BLOCKER_OTHER,                 /* a check that could not be made, a module */
        _METRICS_BLOCKER_MAX,
        _METRICS_BLOCKER_INVALID = -EINVAL,
} MetricsBlockerKind;

/* NVMe over Fabrics connections the swap dropped, by where they stand. */
typedef enum MetricsFabricsBucket {
        METRICS_FABRICS_RECORDED,  /* recorded before the unload, nothing done to them yet */
        METRICS_FABRICS_BACK,      /* live again */
        METRICS_FABRICS_PENDING,   /* not back (yet): to be tried again, or failed so far */
        METRICS_FABRICS_LOST,      /* given up on */
        _METRICS_FABRICS_MAX,
        _METRICS_FABRICS_INVALID = -EINVAL,
} MetricsFabricsBucket;

/* What survives a restart, read back from the file at start. */
typedef struct MetricsCounters {
        uint64_t swaps;                  /* swaps completed: a build loaded over the stack we unloaded */
        uint64_t restores;               /* the in-tree stack put back after an abandoned swap */
        uint64_t refusals;               /* unloads refused: a namespace in use (entries into blocked) */
        uint64_t last_swap_usec;         /* CLOCK_REALTIME when the last swap completed; 0: none yet */
        uint64_t last_swap_duration_usec;   /* from the unload's start to the load's end */
        uint64_t last_swap_driverless_usec; /* from the unload's end to the load's end: no NVMe driver */
} MetricsCounters;

typedef struct MetricsModule {
        const char *name;
        const char *origin;      /* node_origin_to_string() */
        const char *build;       /* "in-tree", "container", "shared-from-host", ...; NULL: unknown */
        const char *srcversion;  /* NULL: not exported */
} MetricsModule;

typedef struct MetricsFacts {
        const char *version;                 /* the daemon's */
        uint64_t start_usec;                 /* CLOCK_REALTIME of the daemon's start */
        SwapState state;
        uint64_t state_since_usec;           /* CLOCK_REALTIME; 0: unknown (no series) */
        SwapMode mode;
        const char *live_build;              /* one of metrics_live_builds[] */
        const MetricsModule *modules;
        size_t n_modules;
        int gds_hooks;                       /* a loaded module exports GDS hooks: 1, 0; < 0 unknown */
        const char *gds_match;               /* "same", "different", "no-hooks", "unknown"; NULL: unknown */
        const char *restore_reason;          /* restoring/restored: one of metrics_restore_reasons[];
                                                NULL in the other states (no series) */
        int driverless;                      /* NVMe controllers without a driver: 1, 0; < 0 unknown */
        unsigned blockers[_METRICS_BLOCKER_MAX];
        unsigned fabrics[_METRICS_FABRICS_MAX];
        MetricsCounters counters;
} MetricsFacts;

/* The values of the live_build state-set, NULL-terminated. */
extern const char *const metrics_live_builds[];
/* Why the in-tree stack is (being) put back, NULL-terminated: "pod-ended"
 * (the driver pod ended and asked for it: RESTORE_DRIVER_ON_POD_TERMINATION),
 * "abandoned" (the swap could not complete), "unknown" (a restarted daemon
 * found it so). */
extern const char *const metrics_restore_reasons[];

const char *metrics_blocker_kind_to_string(MetricsBlockerKind k);
/* A NodeBlocker's kind ("mounted", "swap", ...; other_namespace for a mount
 * seen only in another mount namespace). */
MetricsBlockerKind metrics_blocker_kind(const char *kind, bool other_namespace);
const char *metrics_fabrics_bucket_to_string(MetricsFabricsBucket b);
/* Where a recorded connection's outcome puts it: the one place to extend
 * when the guard learns a new outcome. */
MetricsFabricsBucket metrics_fabrics_bucket(NodeFabricsOutcome o);

/* Pure: the file's text for f. */
int metrics_to_text(const MetricsFacts *f, char **ret);
/* Pure: the counters of a file this daemon wrote (other lines are skipped).
 * -EBADMSG when a counter's line does not parse; then *ret_field (may be
 * NULL) names its metric. *ret untouched on failure. */
int metrics_counters_parse(const char *text, MetricsCounters *ret, const char **ret_field);

/* Through host_path(): the directory is created when its parent exists
 * (-ENOENT when it does not); read: -ENOENT when there is no file. */
int metrics_write(const char *text);
int metrics_read(char **ret);
