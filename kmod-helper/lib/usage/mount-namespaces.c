/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <inttypes.h>
#include <libmount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host-root.h"
#include "usage/mount-namespace-set.h"
#include "usage/mount-namespaces.h"
#include "usage/process-container.h"
#include "util/fileio.h"
#include "util/libmount-util.h"
#include "util/macro.h"

static MountNamespacesStats last_stats;

MountNamespacesStats mount_namespaces_last_stats(void) {
        return last_stats;
}

/* One namespace being matched: its description is built at its first match. */
typedef struct NamespaceScan {
        UsageScan *scan;
        const MountNamespace *ns;
        UsageMountNamespace *described;
} NamespaceScan;

static int describe_container(UsageMountNamespace *m) {
        for (size_t i = 0; i < m->n_named; i++) {
                _cleanup_(process_container_freep) ProcessContainer *c = NULL;
                int r = process_container_read(m->pids[i], &c);

                if (r < 0)
                        return r;
                if (r == 0)
                        continue;
                m->container_id = strdup(c->id);
                m->pod_namespace = TAKE_PTR(c->pod_namespace);
                m->pod_name = TAKE_PTR(c->pod_name);
                m->container_name = TAKE_PTR(c->container_name);
                return m->container_id ? 0 : -ENOMEM;
        }
        return 0;
}

static int describe_namespace(const MountNamespace *ns, UsageMountNamespace **ret) {
        _cleanup_(usage_mount_namespace_freep) UsageMountNamespace *m = calloc(1, sizeof(*m));
        int r;

        if (!m)
                return -ENOMEM;
        m->inode = ns->inode;
        m->n_processes = ns->n_pids;
        for (size_t i = 0; i < ns->n_pids && m->n_named < USAGE_NAMESPACE_NAMED; i++) {
                _cleanup_free_ char *path = NULL, *comm = NULL;

                if (host_pathf(&path, "/proc/%d/comm", (int) ns->pids[i]) < 0)
                        return -ENOMEM;
                r = read_one_line_file(path, &comm);
                if (r == -ENOMEM)
                        return r;
                m->pids[m->n_named] = ns->pids[i];
                m->commands[m->n_named] = r < 0 ? strdup("?") : TAKE_PTR(comm); /* "?": gone meanwhile */
                if (!m->commands[m->n_named++])
                        return -ENOMEM;
        }
        r = describe_container(m);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(m);
        return 0;
}

/* Whether the host's table (read before us) already shows this device mounted. */
static bool mounted_on_host(const UsageScan *s, const DeviceIndexEntry *e) {
        for (size_t i = 0; i < s->n_mounts; i++)
                if (s->mounts[i].kind == e->kind && s->mounts[i].ref == e->ref && s->mounts[i].sub == e->sub)
                        return true;
        return false;
}

/* A stacked device mounted only in that namespace: told on its holder record. */
static int record_holder(NamespaceScan *n, const DeviceIndexEntry *e, const char *target, const char *fstype) {
        _cleanup_free_ char *where = NULL;
        const UsageMountNamespace *m = n->described;

        if (asprintf(&where, "%s in the mount namespace (mnt:[%" PRIu64 "]) of process %d (%s)", target, m->inode,
                     (int) m->pids[0], m->commands[0]) < 0)
                return -ENOMEM;
        return holder_record_set_use(&n->scan->holders, e->ref, e->sub, where, fstype);
}

static int record_one(NamespaceScan *n, const DeviceIndexEntry *e, const char *target, const char *fstype) {
        UsageCollector *c = &n->scan->collector;
        int r;

        if (!n->described && (r = describe_namespace(n->ns, &n->described)) < 0)
                return r;
        if (e->kind == DEVICE_INDEX_HOLDER)
                return record_holder(n, e, target, fstype);
        r = usage_collector_add(c, USAGE_MOUNTED, n->scan->devices->devices[e->ref].name, target, fstype,
                                n->described->pids[0]);
        if (r < 0)
                return r;
        c->usages[r].mount_ns = usage_mount_namespace_copy(n->described);
        return c->usages[r].mount_ns ? 0 : -ENOMEM;
}

static int match_fs(NamespaceScan *n, struct libmnt_fs *fs) {
        const char *target = mnt_fs_get_target(fs);
        const DeviceIndexEntry *e;
        size_t count = 0;
        int r;

        if (!target)
                return 0;
        e = device_index_by_devno(&n->scan->index, mnt_fs_get_devno(fs), &count);
        if (!e)
                e = usage_scan_lookup_dev_path(n->scan, mnt_fs_get_srcpath(fs), &count);
        for (size_t i = 0; i < count; i++)
                if (!mounted_on_host(n->scan, &e[i]) && (r = record_one(n, &e[i], target, mnt_fs_get_fstype(fs))) < 0)
                        return r;
        return 0;
}

static int match_table(NamespaceScan *n, struct libmnt_table *tb) {
        _cleanup_(mnt_free_iterp) struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
        struct libmnt_fs *fs;
        int r;

        if (!it)
                return -ENOMEM;
        while (mnt_table_next_fs(tb, it, &fs) == 0)
                if ((r = match_fs(n, fs)) < 0)
                        return r;
        return 0;
}

/* A process gone between the listing and here: its table is gone too
 * (ENOENT, ESRCH; EINVAL for a zombie, which has no namespace left). */
static bool gone(int r) {
        return r == -ENOENT || r == -ESRCH || r == -EINVAL;
}

/* The namespace's table through its first process still alive. */
static int scan_namespace(UsageScan *s, const MountNamespace *ns) {
        NamespaceScan n = { .scan = s, .ns = ns };
        int r = -ENOENT;

        for (size_t i = 0; i < ns->n_pids && gone(r); i++) {
                _cleanup_(mnt_unref_tablep) struct libmnt_table *tb = mnt_new_table();
                _cleanup_free_ char *path = NULL;

                if (!tb || host_pathf(&path, "/proc/%d/mountinfo", (int) ns->pids[i]) < 0)
                        return -ENOMEM;
                r = mnt_table_parse_file(tb, path);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        continue;
                last_stats.tables_read++;
                r = match_table(&n, tb);
        }
        usage_mount_namespace_free(n.described);
        if (r == -ENOMEM || r >= 0 || gone(r))
                return r == -ENOMEM ? r : 0;
        return usage_collector_note(&s->collector, "could not read the mount table of mount namespace mnt:[%" PRIu64
                                    "] (/proc/%d/mountinfo): %s; a mount only it shows is still caught by the "
                                    "kernel's exclusive open, without a name", ns->inode, (int) ns->pids[0],
                                    strerror(-r));
}

static int note_unreadable(UsageScan *s, const MountNamespaceSet *set) {
        char pids[MOUNT_NAMESPACE_UNREADABLE_NAMED * 12 + 8] = "";
        size_t named = set->n_unreadable < MOUNT_NAMESPACE_UNREADABLE_NAMED ? set->n_unreadable
                                                                             : MOUNT_NAMESPACE_UNREADABLE_NAMED;

        for (size_t i = 0, len = 0; i < named; i++)
                len += (size_t) snprintf(pids + len, sizeof(pids) - len, "%s%d", i ? ", " : "", (int) set->unreadable[i]);
        return usage_collector_note(&s->collector, "could not read the mount namespace of %zu process(es) (pid %s%s: "
                                    "%s); a mount only their namespace shows is still caught by the kernel's "
                                    "exclusive open, without a name", set->n_unreadable, pids,
                                    set->n_unreadable > named ? ", ..." : "", strerror(set->unreadable_errno));
}

static int scan_all(UsageScan *s, const MountNamespaceSet *set) {
        int r;

        if (!set->has_host) {
                /* A fake root without ns links has nothing to tell apart: silent. */
                if (set->n_processes == 0 && set->n_unreadable == 0)
                        return 0;
                return usage_collector_note(&s->collector, "could not read the host's mount namespace "
                                            "(/proc/1/ns/mnt), so other namespaces' mounts are not named; the "
                                            "kernel's exclusive open still catches them");
        }
        if (set->n_unreadable > 0 && (r = note_unreadable(s, set)) < 0)
                return r;
        for (size_t i = 0; i < set->n_namespaces; i++)
                if (set->namespaces[i].inode != set->host_inode && (r = scan_namespace(s, &set->namespaces[i])) < 0)
                        return r;
        return 0;
}

int mount_namespaces_read(UsageScan *s) {
        MountNamespaceSet set;
        int r;

        last_stats = (MountNamespacesStats) {};
        r = mount_namespace_set_read(&set);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return usage_collector_note(&s->collector, "could not list the processes in /proc for their mount "
                                            "namespaces: %s", strerror(-r));
        last_stats.processes = set.n_processes;
        last_stats.namespaces = set.n_namespaces;
        r = scan_all(s, &set);
        mount_namespace_set_done(&set);
        return r < 0 ? r : 0;
}
