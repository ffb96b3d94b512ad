/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvme/nvme-names.h"
#include "usage/exclusive-open.h"
#include "usage/mount-namespaces.h"
#include "usage/mount-users.h"
#include "usage/process-users.h"
#include "usage/swap-space-users.h"
#include "usage/usage-check.h"
#include "usage/usage-scan.h"
#include "util/macro.h"
#include "util/strv.h"

static const char *const kind_names[_USAGE_KIND_MAX] = {
        [USAGE_MOUNTED] = "mounted",
        [USAGE_SWAP] = "swap",
        [USAGE_HOLDER] = "holder",
        [USAGE_OPEN_BY_PROCESS] = "open-by-process",
        [USAGE_KERNEL_CLAIM] = "kernel-claim",
        [USAGE_UNCHECKED] = "unchecked",
};

const char *usage_kind_to_string(UsageKind k) {
        return k >= 0 && k < _USAGE_KIND_MAX ? kind_names[k] : NULL;
}

/* ", mounted on /srv (ext4)", ", used as swap" or "": what the holder is used for. */
static int describe_holder_use(const Usage *u, char **ret) {
        int r;

        if (!u->mount_point)
                r = asprintf(ret, "%s", "");
        else if (streq(u->mount_point, "[SWAP]"))
                r = asprintf(ret, "%s", ", used as swap");
        else if (u->fstype)
                r = asprintf(ret, ", mounted on %s (%s)", u->mount_point, u->fstype);
        else
                r = asprintf(ret, ", mounted on %s", u->mount_point);
        return r < 0 ? -ENOMEM : 0;
}

/* "nvme0n1 is held by dm-0 (luks-1) through dm-2 (vg0-home), mounted on /home (xfs)" */
static int describe_holder(const Usage *u, char **ret) {
        const char *name = u->what ?: u->where ?: "?";
        bool has_friendly = u->where && u->what && !streq(u->where, u->what);
        _cleanup_free_ char *use = NULL, *friendly = NULL;

        if (describe_holder_use(u, &use) < 0)
                return -ENOMEM;
        if (has_friendly && asprintf(&friendly, " (%s)", u->where) < 0)
                return -ENOMEM;
        if (asprintf(ret, "%s is held by %s%s%s%s%s", u->device, name, friendly ?: "", u->via ? " through " : "",
                     u->via ?: "", use) < 0)
                return -ENOMEM;
        return 0;
}

/* "process 312 (dbus-broker)" or "3 processes: 312 (sh), 313 (sleep) and 1 more". */
static int describe_processes(const UsageMountNamespace *m, char **ret) {
        _cleanup_free_ char *list = NULL;
        size_t more = m->n_processes > m->n_named ? m->n_processes - m->n_named : 0;

        for (size_t i = 0; i < m->n_named; i++) {
                char *grown;

                if (asprintf(&grown, "%s%s%d (%s)", list ?: "", !list ? "" : i + 1 == m->n_named && !more ? " and " : ", ",
                             (int) m->pids[i], m->commands[i] ?: "?") < 0)
                        return -ENOMEM;
                free(list);
                list = grown;
        }
        if (m->n_processes <= 1)
                return asprintf(ret, "process %s", list ?: "?") < 0 ? -ENOMEM : 0;
        if (more)
                return asprintf(ret, "%zu processes: %s and %zu more", m->n_processes, list ?: "?", more) < 0 ? -ENOMEM : 0;
        return asprintf(ret, "%zu processes: %s", m->n_processes, list ?: "?") < 0 ? -ENOMEM : 0;
}

/* "; CRI-O container 3f1c2a9b8e7d (mofed-container in pod ns/name)" or "". */
static int describe_container(const UsageMountNamespace *m, char **ret) {
        int r;

        if (!m->container_id)
                r = asprintf(ret, "%s", "");
        else if (m->container_name || m->pod_namespace || m->pod_name)
                r = asprintf(ret, "; CRI-O container %.12s (%s in pod %s/%s)", m->container_id,
                             m->container_name ?: "?", m->pod_namespace ?: "?", m->pod_name ?: "?");
        else
                r = asprintf(ret, "; CRI-O container %.12s (its config.json could not be read)", m->container_id);
        return r < 0 ? -ENOMEM : 0;
}

/* "nvme1n1 is mounted on /mnt/fab (xfs) in another mount namespace than the
 * host's (mnt:[4026532301]), that of process 312 (dbus-broker)[; CRI-O ...]" */
static int describe_mounted(const Usage *u, char **ret) {
        _cleanup_free_ char *procs = NULL, *container = NULL, *fs = NULL;

        if (u->what && asprintf(&fs, " (%s)", u->what) < 0)
                return -ENOMEM;
        if (!u->mount_ns)
                return asprintf(ret, "%s is mounted on %s%s", u->device, u->where, fs ?: "") < 0 ? -ENOMEM : 0;
        if (describe_processes(u->mount_ns, &procs) < 0 || describe_container(u->mount_ns, &container) < 0)
                return -ENOMEM;
        return asprintf(ret, "%s is mounted on %s%s in another mount namespace than the host's (mnt:[%" PRIu64
                        "]), that of %s%s", u->device, u->where, fs ?: "", u->mount_ns->inode, procs, container) < 0
                       ? -ENOMEM
                       : 0;
}

int usage_describe(const Usage *u, char **ret) {
        int r = -1;

        switch (u->kind) {
        case USAGE_MOUNTED:
                return describe_mounted(u, ret);
        case USAGE_SWAP:
                r = u->what && streq(u->what, "file")
                            ? asprintf(ret, "%s holds the active swap file %s (swapoff it first)", u->device, u->where)
                            : asprintf(ret, "%s is in use as swap (%s)", u->device, u->where);
                break;
        case USAGE_HOLDER:
                return describe_holder(u, ret);
        case USAGE_OPEN_BY_PROCESS:
                r = asprintf(ret, "%s is open by process %d (%s)", u->device, (int) u->pid, u->where ?: "?");
                break;
        case USAGE_KERNEL_CLAIM:
                r = asprintf(ret, "%s is claimed in the kernel (exclusive open: busy) though no mount table of "
                             "any mount namespace, no swap, holder or process shows it: the kernel's answer is the "
                             "last word here, most likely a lazily unmounted (umount -l) filesystem still in use, "
                             "or a mount in a namespace that could not be read", u->device);
                break;
        case USAGE_UNCHECKED:
                r = asprintf(ret, "could not check %s: %s", u->device, u->what ?: "unknown reason");
                break;
        default:
                return -EINVAL;
        }
        return r < 0 ? -ENOMEM : 0;
}

UsageReport *usage_report_free(UsageReport *r) {
        if (!r)
                return NULL;
        nvme_block_devices_free(r->devices);
        for (size_t i = 0; i < r->n_usages; i++)
                usage_done(&r->usages[i]);
        free(r->usages);
        strv_free(r->notes);
        free(r);
        return NULL;
}


bool usage_report_in_use(const UsageReport *r) {
        return r && r->n_usages > 0;
}

bool usage_report_device_in_use(const UsageReport *r, const char *namespace_name) {
        for (size_t i = 0; r && namespace_name && i < r->n_usages; i++)
                if (nvme_name_belongs_to(r->usages[i].device, namespace_name))
                        return true;
        return false;
}

typedef struct UsageOrder {
        size_t device, seq;
} UsageOrder;

static int cmp_order(const void *a, const void *b) {
        const UsageOrder *x = a, *y = b;

        if (x->device != y->device)
                return x->device < y->device ? -1 : 1;
        return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Moves the collected usages into the report, in device order (and in the
 * order found within a device). */
static int take_sorted_usages(UsageScan *s, UsageReport *rep) {
        UsageCollector *c = &s->collector;
        _cleanup_free_ UsageOrder *order = calloc(c->n_usages + 1, sizeof(UsageOrder));
        size_t n;

        rep->usages = calloc(c->n_usages + 1, sizeof(Usage));
        if (!order || !rep->usages)
                return -ENOMEM;
        for (size_t i = 0; i < c->n_usages; i++) {
                const DeviceIndexEntry *e = device_index_by_name(&s->index, c->usages[i].device, &n);

                order[i] = (UsageOrder) { .device = e ? e->ref : SIZE_MAX, .seq = i };
        }
        qsort(order, c->n_usages, sizeof(UsageOrder), cmp_order);
        for (size_t i = 0; i < c->n_usages; i++)
                rep->usages[i] = c->usages[order[i].seq];
        rep->n_usages = c->n_usages;
        c->n_usages = 0; /* moved */
        rep->notes = TAKE_PTR(c->notes);
        return 0;
}

/* The sources, in the order that lets each use what the earlier found:
 * holder records get their mounts and swap before they become usages, swap
 * files need the host's mounts, other namespaces' mounts are named only for
 * what the host's table does not explain, and the exclusive open only
 * probes what nothing else explains. */
static int run_sources(UsageScan *s) {
        int r;

        if ((r = holder_set_read(s->devices, &s->holders, &s->collector)) < 0 ||
            (r = usage_scan_build_index(s)) < 0 || (r = mount_users_read(s)) < 0 || (r = swap_space_users_read(s)) < 0 ||
            (r = mount_namespaces_read(s)) < 0 ||
            (r = holder_set_to_usages(&s->holders, s->devices, &s->collector)) < 0 ||
            (r = process_users_read(s)) < 0 || (r = exclusive_open_check(s)) < 0)
                return r;
        return 0;
}

static int add_device_notes(const NvmeBlockDevices *d, char ***notes) {
        STRV_FOREACH(n, d->notes)
                if (strv_extend(notes, *n) < 0)
                        return -ENOMEM;
        return 0;
}

int usage_check(UsageReport **ret) {
        return usage_check_holding(NULL, ret);
}

int usage_check_holding(char *const *held, UsageReport **ret) {
        _cleanup_(usage_report_freep) UsageReport *rep = calloc(1, sizeof(UsageReport));
        _cleanup_(usage_scan_done) UsageScan s = {};
        int r;

        if (!rep)
                return -ENOMEM;
        r = nvme_block_devices_scan(&rep->devices);
        if (r < 0)
                return r;
        if ((r = usage_scan_init(&s, rep->devices)) < 0 || (r = add_device_notes(rep->devices, &s.collector.notes)) < 0)
                return r;
        s.held = held;
        r = run_sources(&s);
        if (r < 0)
                return r;
        r = take_sorted_usages(&s, rep);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(rep);
        return 0;
}
