/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "host/host-root.h"
#include "usage/mount-namespace-set.h"
#include "util/alloc-util.h"
#include "util/fileio.h"
#include "util/macro.h"
#include "util/parse-util.h"
#include "util/strv.h"

typedef struct NsPid {
        uint64_t inode;
        pid_t pid;
} NsPid;

int mount_namespace_parse_link(const char *text, uint64_t *ret) {
        _cleanup_free_ char *digits = NULL;
        size_t n;

        if (!text || !strneq(text, "mnt:[", 5))
                return -EINVAL;
        n = strlen(text + 5);
        if (n < 2 || text[5 + n - 1] != ']')
                return -EINVAL;
        digits = strndup(text + 5, n - 1);
        if (!digits)
                return -ENOMEM;
        return safe_atou64(digits, ret) < 0 ? -EINVAL : 0;
}

static int cmp_ns_pid(const void *a, const void *b) {
        const NsPid *x = a, *y = b;

        if (x->inode != y->inode)
                return x->inode < y->inode ? -1 : 1;
        return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void note_unreadable(MountNamespaceSet *s, pid_t pid, int error) {
        if (s->n_unreadable == 0)
                s->unreadable_errno = error;
        if (s->n_unreadable < MOUNT_NAMESPACE_UNREADABLE_NAMED)
                s->unreadable[s->n_unreadable] = pid;
        s->n_unreadable++;
}

/* One process's namespace: 1 read (into *ret), 0 gone or unreadable (counted), -ENOMEM. */
static int read_one(MountNamespaceSet *s, pid_t pid, uint64_t *ret) {
        _cleanup_free_ char *path = NULL, *link = NULL;
        int r;

        if (host_pathf(&path, "/proc/%d/ns/mnt", (int) pid) < 0)
                return -ENOMEM;
        r = read_link(path, &link);
        if (r == -ENOMEM)
                return r;
        if (r == -ENOENT || r == -ESRCH || r == -ENOTDIR)
                return 0; /* exited while we looked (or a fake root's pid without ns/) */
        if (r < 0) {
                note_unreadable(s, pid, -r);
                return 0;
        }
        r = mount_namespace_parse_link(link, ret);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                note_unreadable(s, pid, EBADMSG);
                return 0;
        }
        return 1;
}

/* Sorted (inode, pid) pairs into one MountNamespace per inode. */
static int group(MountNamespaceSet *s, NsPid *pairs, size_t n) {
        size_t alloc = 0;

        qsort(pairs, n, sizeof(NsPid), cmp_ns_pid);
        for (size_t start = 0, end; start < n; start = end) {
                MountNamespace *ns;

                for (end = start + 1; end < n && pairs[end].inode == pairs[start].inode; end++)
                        ;
                if (ARRAY_RESERVE(s->namespaces, alloc, s->n_namespaces, 8) < 0)
                        return -ENOMEM;
                ns = &s->namespaces[s->n_namespaces];
                *ns = (MountNamespace) { .inode = pairs[start].inode, .pids = calloc(end - start, sizeof(pid_t)) };
                if (!ns->pids)
                        return -ENOMEM;
                for (size_t i = start; i < end; i++)
                        ns->pids[ns->n_pids++] = pairs[i].pid;
                s->n_namespaces++;
        }
        return 0;
}

static int read_all(MountNamespaceSet *s, char **names) {
        _cleanup_free_ NsPid *pairs = calloc(strv_length(names) + 1, sizeof(NsPid));
        size_t n = 0;
        int r;

        if (!pairs)
                return -ENOMEM;
        STRV_FOREACH(name, names) {
                int pid;
                uint64_t inode;

                if (!is_all_digits(*name) || safe_atoi(*name, &pid) < 0 || pid <= 0)
                        continue;
                r = read_one(s, pid, &inode);
                if (r < 0)
                        return r;
                if (r == 0)
                        continue;
                if (pid == 1) {
                        s->host_inode = inode;
                        s->has_host = true;
                }
                pairs[n++] = (NsPid) { .inode = inode, .pid = pid };
        }
        s->n_processes = n;
        return group(s, pairs, n);
}

int mount_namespace_set_read(MountNamespaceSet *ret) {
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_free_ char *proc = NULL;
        int r;

        *ret = (MountNamespaceSet) {};
        if (host_path("/proc", &proc) < 0)
                return -ENOMEM;
        r = read_dir_names(proc, &names);
        if (r < 0)
                return r;
        r = read_all(ret, names);
        if (r < 0)
                mount_namespace_set_done(ret);
        return r;
}

void mount_namespace_set_done(MountNamespaceSet *s) {
        for (size_t i = 0; i < s->n_namespaces; i++)
                free(s->namespaces[i].pids);
        free(s->namespaces);
        *s = (MountNamespaceSet) {};
}

const MountNamespace *mount_namespace_set_find(const MountNamespaceSet *s, uint64_t inode) {
        size_t lo = 0, hi = s->n_namespaces;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (s->namespaces[mid].inode == inode)
                        return &s->namespaces[mid];
                if (s->namespaces[mid].inode < inode)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return NULL;
}
