/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host/host-root.h"
#include "publish/metrics.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/string-util.h"

const char *const metrics_live_builds[] = { "in-tree", "nvidia", "out-of-tree", "absent", "unknown", NULL };
const char *const metrics_restore_reasons[] = { "pod-ended", "abandoned", "unknown", NULL };

static const char *const blocker_kinds[_METRICS_BLOCKER_MAX] = {
        [METRICS_BLOCKER_MOUNT] = "mount",
        [METRICS_BLOCKER_OTHER_NAMESPACE_MOUNT] = "other-namespace-mount",
        [METRICS_BLOCKER_SWAP] = "swap",
        [METRICS_BLOCKER_HOLDER] = "holder",
        [METRICS_BLOCKER_OPEN] = "open",
        [METRICS_BLOCKER_KERNEL_CLAIM] = "kernel-claim",
        [METRICS_BLOCKER_OTHER] = "other",
};

static const char *const fabrics_buckets[_METRICS_FABRICS_MAX] = {
        [METRICS_FABRICS_RECORDED] = "recorded",
        [METRICS_FABRICS_BACK] = "back",
        [METRICS_FABRICS_PENDING] = "pending",
        [METRICS_FABRICS_LOST] = "lost",
};

const char *metrics_blocker_kind_to_string(MetricsBlockerKind k) {
        return k >= 0 && k < _METRICS_BLOCKER_MAX ? blocker_kinds[k] : NULL;
}

MetricsBlockerKind metrics_blocker_kind(const char *kind, bool other_namespace) {
        if (!kind)
                return METRICS_BLOCKER_OTHER;
        if (streq(kind, "mounted"))
                return other_namespace ? METRICS_BLOCKER_OTHER_NAMESPACE_MOUNT : METRICS_BLOCKER_MOUNT;
        if (streq(kind, "swap"))
                return METRICS_BLOCKER_SWAP;
        if (streq(kind, "holder"))
                return METRICS_BLOCKER_HOLDER;
        if (streq(kind, "open"))
                return METRICS_BLOCKER_OPEN;
        if (streq(kind, "kernel-claim"))
                return METRICS_BLOCKER_KERNEL_CLAIM;
        return METRICS_BLOCKER_OTHER;
}

const char *metrics_fabrics_bucket_to_string(MetricsFabricsBucket b) {
        return b >= 0 && b < _METRICS_FABRICS_MAX ? fabrics_buckets[b] : NULL;
}

/* A failed reconnect stays in the record and is tried again (every
 * reconnect_delay, by the connect unit): pending, not lost, until its
 * ctrl_loss_tmo has passed and it is given up. */
MetricsFabricsBucket metrics_fabrics_bucket(NodeFabricsOutcome o) {
        switch (o) {
        case NODE_FABRICS_LIVE:
                return METRICS_FABRICS_RECORDED;
        case NODE_FABRICS_RECONNECTED:
        case NODE_FABRICS_ALREADY_LIVE:
                return METRICS_FABRICS_BACK;
        case NODE_FABRICS_PENDING:
        case NODE_FABRICS_FAILED:
        case NODE_FABRICS_NAMESPACES_MISSING:
                return METRICS_FABRICS_PENDING;
        case NODE_FABRICS_LOST:
                return METRICS_FABRICS_LOST;
        default:
                return _METRICS_FABRICS_INVALID;
        }
}

/* A label value as the text format wants it: \\, \" and \n escaped. */
static void put_label_value(FILE *f, const char *s) {
        fputc('"', f);
        for (; s && *s; s++) {
                if (*s == '\\' || *s == '"')
                        fputc('\\', f);
                if (*s == '\n') {
                        fputs("\\n", f);
                        continue;
                }
                fputc(*s, f);
        }
        fputc('"', f);
}

static void put_header(FILE *f, const char *name, const char *type, const char *help) {
        fprintf(f, "# HELP " METRICS_PREFIX "%s %s\n# TYPE " METRICS_PREFIX "%s %s\n", name, help, name, type);
}

/* µs as seconds, exactly (no float rounding of a timestamp). */
static void put_seconds(FILE *f, uint64_t usec) {
        fprintf(f, "%" PRIu64 ".%06" PRIu64 "\n", usec / 1000000U, usec % 1000000U);
}

static void put_gauge_seconds(FILE *f, const char *name, const char *help, uint64_t usec) {
        put_header(f, name, "gauge", help);
        fprintf(f, METRICS_PREFIX "%s ", name);
        put_seconds(f, usec);
}

/* A state-set: one series per value, the current one 1. */
static void put_state_set(FILE *f, const char *name, const char *label, const char *help,
                          const char *const *values, size_t n, const char *current) {
        put_header(f, name, "gauge", help);
        for (size_t i = 0; i < n && values[i]; i++) {
                fprintf(f, METRICS_PREFIX "%s{%s=", name, label);
                put_label_value(f, values[i]);
                fprintf(f, "} %d\n", current && streq(values[i], current));
        }
}

static void put_counter(FILE *f, const char *name, const char *help, uint64_t v) {
        put_header(f, name, "counter", help);
        fprintf(f, METRICS_PREFIX "%s %" PRIu64 "\n", name, v);
}

static void put_identity(FILE *f, const MetricsFacts *x) {
        const char *states[_SWAP_STATE_MAX], *modes[_SWAP_MODE_MAX];

        put_header(f, "build_info", "gauge", "The daemon's version (always 1).");
        fputs(METRICS_PREFIX "build_info{version=", f);
        put_label_value(f, x->version ?: "unknown");
        fputs("} 1\n", f);
        put_gauge_seconds(f, "start_timestamp_seconds", "When the daemon started (Unix time).", x->start_usec);

        for (SwapState s = 0; s < _SWAP_STATE_MAX; s++)
                states[s] = swap_state_to_string(s);
        put_state_set(f, "state", "state", "The swap's state: 1 for the current one (see README, states).",
                      states, _SWAP_STATE_MAX, swap_state_to_string(x->state));
        if (x->state_since_usec > 0)
                put_gauge_seconds(f, "state_since_timestamp_seconds",
                                  "When the daemon entered its current state (Unix time).", x->state_since_usec);
        for (SwapMode m = 0; m < _SWAP_MODE_MAX; m++)
                modes[m] = swap_mode_to_string(m);
        put_state_set(f, "mode", "mode", "Mode=: enforce swaps, observe only says what it would do.",
                      modes, _SWAP_MODE_MAX, swap_mode_to_string(x->mode));
        if (x->restore_reason)
                put_state_set(f, "restore_reason", "reason",
                              "While restoring or restored: why the in-tree stack is put back (pod-ended: "
                              "the driver pod asked for it; abandoned: the swap could not complete).",
                              metrics_restore_reasons, SIZE_MAX, x->restore_reason);
}

static void put_modules(FILE *f, const MetricsFacts *x) {
        put_state_set(f, "live_build", "build",
                      "The build of the node's NVMe driver: nvme's origin (nvme_core's without nvme).",
                      metrics_live_builds, SIZE_MAX, x->live_build ?: "unknown");
        put_header(f, "module_info", "gauge",
                   "Each module of the NVMe stack: its origin, build and srcversion (always 1).");
        for (size_t i = 0; i < x->n_modules; i++) {
                const MetricsModule *m = &x->modules[i];

                fputs(METRICS_PREFIX "module_info{module=", f);
                put_label_value(f, m->name);
                fputs(",origin=", f);
                put_label_value(f, m->origin ?: "unknown");
                fputs(",build=", f);
                put_label_value(f, m->build ?: "unknown");
                fputs(",srcversion=", f);
                put_label_value(f, m->srcversion ?: "");
                fputs("} 1\n", f);
        }
        if (x->gds_hooks >= 0) {
                put_header(f, "gds_hooks_present", "gauge", "A loaded NVMe module exports the GDS hooks: 1, else 0.");
                fprintf(f, METRICS_PREFIX "gds_hooks_present %d\n", x->gds_hooks > 0);
        }
        put_state_set(f, "gds_hooks_match", "match",
                      "Whether nvme's GDS hooks are the generation nvidia_fs asks for (unknown: nvidia_fs not loaded).",
                      (const char *const[]) { "same", "different", "no-hooks", "unknown" }, 4, x->gds_match ?: "unknown");
        if (x->driverless >= 0) {
                put_header(f, "nvme_driverless", "gauge", "NVMe controllers of the node have no driver bound: 1, else 0.");
                fprintf(f, METRICS_PREFIX "nvme_driverless %d\n", x->driverless > 0);
        }
}

static void put_use(FILE *f, const MetricsFacts *x) {
        put_header(f, "blockers", "gauge", "What keeps the in-tree stack from being unloaded now, by kind.");
        for (MetricsBlockerKind k = 0; k < _METRICS_BLOCKER_MAX; k++)
                fprintf(f, METRICS_PREFIX "blockers{kind=\"%s\"} %u\n", blocker_kinds[k], x->blockers[k]);
        put_header(f, "fabrics_connections", "gauge",
                   "NVMe over Fabrics connections the last unload dropped, by where they stand.");
        for (MetricsFabricsBucket b = 0; b < _METRICS_FABRICS_MAX; b++)
                fprintf(f, METRICS_PREFIX "fabrics_connections{state=\"%s\"} %u\n", fabrics_buckets[b], x->fabrics[b]);
}

static void put_counters(FILE *f, const MetricsCounters *c) {
        put_counter(f, "swaps_total", "Swaps completed: NVIDIA's build loaded after the in-tree stack's unload.", c->swaps);
        put_counter(f, "restores_total", "The in-tree stack put back after a swap was abandoned.", c->restores);
        put_counter(f, "refusals_total", "Unloads refused because an NVMe namespace was in use.", c->refusals);
        if (c->last_swap_usec == 0)
                return;
        put_gauge_seconds(f, "last_swap_timestamp_seconds", "When the last swap completed (Unix time).",
                          c->last_swap_usec);
        put_gauge_seconds(f, "last_swap_duration_seconds",
                          "The last swap, from the in-tree stack's unload to the new build loaded.",
                          c->last_swap_duration_usec);
        put_gauge_seconds(f, "last_swap_driverless_seconds",
                          "How long the node had no NVMe driver during the last swap.",
                          c->last_swap_driverless_usec);
}

int metrics_to_text(const MetricsFacts *x, char **ret) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f;

        if (!x || !ret)
                return -EINVAL;
        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        put_identity(f, x);
        put_modules(f, x);
        put_use(f, x);
        put_counters(f, &x->counters);
        if (ferror(f) || fclose(f) != 0) {
                free(buf);
                return -ENOMEM;
        }
        *ret = buf;
        return 0;
}

static const struct {
        const char *name;
        size_t offset;
        bool seconds;
} counter_lines[] = {
        { METRICS_PREFIX "swaps_total", offsetof(MetricsCounters, swaps), false },
        { METRICS_PREFIX "restores_total", offsetof(MetricsCounters, restores), false },
        { METRICS_PREFIX "refusals_total", offsetof(MetricsCounters, refusals), false },
        { METRICS_PREFIX "last_swap_timestamp_seconds", offsetof(MetricsCounters, last_swap_usec), true },
        { METRICS_PREFIX "last_swap_duration_seconds", offsetof(MetricsCounters, last_swap_duration_usec), true },
        { METRICS_PREFIX "last_swap_driverless_seconds", offsetof(MetricsCounters, last_swap_driverless_usec), true },
};

/* "123" or, for seconds, "123.000456": digits only, as we write them. */
static int parse_value(const char *s, bool seconds, uint64_t *ret) {
        uint64_t whole = 0, frac = 0;
        unsigned digits = 0;
        const char *p = s;

        if (*p < '0' || *p > '9')
                return -EBADMSG;
        for (; *p >= '0' && *p <= '9'; p++) {
                if (whole > (UINT64_MAX - 9) / 10)
                        return -EBADMSG;
                whole = whole * 10 + (uint64_t) (*p - '0');
        }
        if (seconds && *p == '.')
                for (p++; *p >= '0' && *p <= '9'; p++, digits++)
                        if (digits < 6)
                                frac = frac * 10 + (uint64_t) (*p - '0');
        if (*p != '\0' && *p != '\n')
                return -EBADMSG;
        for (; digits < 6; digits++)
                frac *= 10;
        if (seconds && whole > UINT64_MAX / 1000000U - 1)
                return -EBADMSG;
        *ret = seconds ? whole * 1000000U + frac : whole;
        return 0;
}

int metrics_counters_parse(const char *text, MetricsCounters *ret, const char **ret_field) {
        MetricsCounters c = {};

        if (!text || !ret)
                return -EINVAL;
        for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
                for (size_t i = 0; i < ELEMENTSOF(counter_lines); i++) {
                        size_t n = strlen(counter_lines[i].name);

                        if (strncmp(line, counter_lines[i].name, n) != 0 || line[n] != ' ')
                                continue;
                        if (parse_value(line + n + 1, counter_lines[i].seconds,
                                        (uint64_t *) ((char *) &c + counter_lines[i].offset)) < 0) {
                                if (ret_field)
                                        *ret_field = counter_lines[i].name;
                                return -EBADMSG;
                        }
                }
        *ret = c;
        return 0;
}

int metrics_write(const char *text) {
        _cleanup_free_ char *dir = NULL, *path = NULL;
        int r;

        r = host_path(METRICS_DIR, &dir);
        if (r >= 0)
                r = host_path(METRICS_FILE, &path);
        if (r < 0)
                return r;
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        /* 0644 whatever the unit's UMask=0077: the exporter's user reads it. */
        return write_file_atomic(path, text, 0644);
}

int metrics_read(char **ret) {
        _cleanup_free_ char *path = NULL;
        int r;

        r = host_path(METRICS_FILE, &path);
        if (r < 0)
                return r;
        return read_regular_file(path, METRICS_FILE_MAX, ret, NULL);
}
