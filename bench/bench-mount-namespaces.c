/* SPDX-License-Identifier: Apache-2.0 */
/* bench-mount-namespaces [PROCESSES NAMESPACES [RUNS]]: the cost of reading
 * every mount namespace in the usage check (a host umount does not reach a
 * private copy of the mount elsewhere), the shipped code
 * (libswapguard's mount_namespaces_read(), through a whole usage_check()).
 *
 * Part 1, a fake root (tests/fakeroot's fake-node library): a node with one
 * NVMe namespace (two partitions), PROCESSES processes spread over
 * NAMESPACES mount namespaces (pid 1 in the host's), each namespace's table
 * MOUNTINFO_LINES lines long (a container's: overlay root, proc, sys, dev,
 * secrets, configmaps), one of them holding an NVMe partition the host has
 * unmounted. Prints the median of RUNS usage checks with the namespace
 * links and without them (the same node, ns/mnt links removed: the cost
 * of a check that read the host's table only), and the work counted: processes, namespaces, tables
 * parsed. For comparison, the naive way (one table per process) is timed
 * too: every process's mountinfo parsed with libmount.
 *
 * Part 2, real namespaces (root only, else skipped with the reason): in a
 * pid namespace of its own (its init can read its own ns/mnt link, as the
 * daemon reads pid 1's; a fresh /proc shows only its processes),
 * NAMESPACES children each unshare(CLONE_NEWNS) and fork until PROCESSES
 * processes wait in those namespaces; mount_namespaces_read() then runs on
 * the kernel's own /proc files. Prints the median time and the counts.
 *
 * Numbers only, no assertion: docs/BENCHMARKS.md section 3c. */

#include <dirent.h>
#include <errno.h>
#include <libmount.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake-node.h"
#include "host/host-root.h"
#include "nvme/nvme-block-devices.h"
#include "usage/mount-namespaces.h"
#include "usage/usage-check.h"
#include "usage/usage-scan.h"

#define MOUNTINFO_LINES 40
#define RUNS_DEFAULT 9
#define PIDS_FROM 1000

static double clock_ms(clockid_t id) {
        struct timespec ts;

        clock_gettime(id, &ts);
        return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

/* CPU time of this thread: what the scan costs, not stretched by the other
 * load of a shared machine (the kernel's generation of /proc text included). */
static double cpu_ms(void) {
        return clock_ms(CLOCK_THREAD_CPUTIME_ID);
}

static double now_ms(void) {
        return clock_ms(CLOCK_MONOTONIC);
}

typedef struct Timing {
        double wall, cpu; /* medians */
} Timing;

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;

        return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n) {
        qsort(v, n, sizeof(double), cmp_double);
        return v[n / 2];
}

static int die(const char *what, int r) {
        fprintf(stderr, "bench-mount-namespaces: %s: %s\n", what, strerror(r < 0 ? -r : r));
        exit(1);
}

/* A container's table: MOUNTINFO_LINES lines with anonymous devnos. */
static void container_table(FakeNode *n, pid_t pid) {
        char path[4096];
        FILE *f;

        snprintf(path, sizeof(path), "%s/proc/%d/mountinfo", fake_node_root(n), (int) pid);
        f = fopen(path, "we");
        if (!f)
                die(path, -errno);
        fprintf(f, "%d 1 0:%d / / rw,relatime - overlay overlay rw,lowerdir=/var/lib/containers/l/A\n", 1000, 100);
        for (int i = 1; i < MOUNTINFO_LINES; i++)
                fprintf(f, "%d 1000 0:%d / /run/secrets/kubernetes.io/vol-%d ro,relatime - tmpfs tmpfs rw\n",
                        1000 + i, 100 + i, i);
        fclose(f);
}

/* PROCESSES processes in NAMESPACES namespaces; the first process of each
 * namespace has its table (the others' are never read: one per namespace). */
static void build(const char *dir, unsigned processes, unsigned namespaces, FakeNode **ret) {
        FakeNode *n;
        int r;

        if ((r = fake_node_new(dir, &n)) < 0 || (r = fake_node_add_namespace(n, 0, 1, false, 2)) < 0 ||
            (r = fake_node_set_mount_namespace(n, 1, FAKE_NODE_HOST_MNT_NS, "systemd")) < 0)
                die("fake node", r);
        for (unsigned i = 0; i < processes; i++) {
                pid_t pid = PIDS_FROM + (pid_t) i;
                unsigned ns = i % namespaces;

                if ((r = fake_node_set_mount_namespace(n, pid, 4026532000ULL + ns, "worker")) < 0)
                        die("process", r);
                if (i < namespaces)
                        container_table(n, pid);
        }
        /* One namespace keeps an NVMe partition the host no longer has. */
        if ((r = fake_node_add_namespace_mount(n, PIDS_FROM + (pid_t) namespaces / 2, "nvme0n1p2", "/data",
                                               "xfs")) < 0)
                die("namespace mount", r);
        *ret = n;
}

static Timing time_check(unsigned runs, size_t *ret_usages) {
        double t[64], c[64];

        for (unsigned k = 0; k < runs; k++) {
                UsageReport *rep = NULL;
                double t0 = now_ms(), c0 = cpu_ms();
                int r = usage_check(&rep);

                c[k] = cpu_ms() - c0;
                t[k] = now_ms() - t0;
                if (r < 0)
                        die("usage_check", r);
                *ret_usages = rep->n_usages;
                usage_report_free(rep);
        }
        return (Timing) { median(t, runs), median(c, runs) };
}

/* The naive way: every process's table parsed. */
static Timing time_per_process(const char *root, unsigned processes, unsigned namespaces, unsigned runs) {
        double t[64], c[64];

        for (unsigned k = 0; k < runs; k++) {
                double t0 = now_ms(), c0 = cpu_ms();

                for (unsigned i = 0; i < processes; i++) {
                        struct libmnt_table *tb = mnt_new_table();
                        char path[4096];

                        /* every process's table is its namespace's: parse the first one's */
                        snprintf(path, sizeof(path), "%s/proc/%u/mountinfo", root, PIDS_FROM + i % namespaces);
                        (void) mnt_table_parse_file(tb, path);
                        mnt_unref_table(tb);
                }
                c[k] = cpu_ms() - c0;
                t[k] = now_ms() - t0;
        }
        return (Timing) { median(t, runs), median(c, runs) };
}

static void remove_ns_links(const char *root, unsigned processes) {
        char path[4096];

        for (unsigned i = 0; i <= processes; i++) {
                snprintf(path, sizeof(path), "%s/proc/%u/ns/mnt", root, i == processes ? 1 : PIDS_FROM + i);
                (void) unlink(path);
        }
}

static void part_fake(unsigned processes, unsigned namespaces, unsigned runs) {
        char dir[] = "/tmp/bench-mntns-XXXXXX", cmd[4200];
        MountNamespacesStats st;
        FakeNode *n = NULL;
        size_t usages = 0, usages_before = 0;
        Timing with, without, naive;

        if (!mkdtemp(dir))
                die("mkdtemp", -errno);
        build(dir, processes, namespaces, &n);
        if (host_root_set(fake_node_root(n)) < 0)
                die("host root", -EINVAL);
        (void) time_check(1, &usages); /* warm the page cache */
        with = time_check(runs, &usages);
        st = mount_namespaces_last_stats();
        naive = time_per_process(fake_node_root(n), processes, namespaces, runs);
        remove_ns_links(fake_node_root(n), processes);
        without = time_check(runs, &usages_before);
        printf("fake root: %u processes in %u mount namespaces (+ the host's), %d-line tables\n", processes,
               namespaces, MOUNTINFO_LINES);
        printf("  (medians of %u: wall ms / CPU ms)\n", runs);
        printf("  usage check with every namespace:  %8.2f / %8.2f (%zu processes, %zu namespaces, %zu tables "
               "parsed; %zu usage(s))\n", with.wall, with.cpu, st.processes, st.namespaces, st.tables_read, usages);
        printf("  usage check, host's table only:    %8.2f / %8.2f (ns/mnt links removed: the host's table alone)\n",
               without.wall, without.cpu);
        printf("  added by the namespaces:           %8.2f / %8.2f\n", with.wall - without.wall, with.cpu - without.cpu);
        printf("  naive: one table per process:      %8.2f / %8.2f (%u tables parsed)\n", naive.wall, naive.cpu,
               processes);
        fake_node_free(n);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        (void) system(cmd);
        (void) host_root_set(NULL);
}

/* Children that wait in a mount namespace of their own until the pid
 * namespace's init (our caller) exits. */
static pid_t spawn_namespace(unsigned members) {
        pid_t leader = fork();

        if (leader != 0)
                return leader;
        if (unshare(CLONE_NEWNS) < 0)
                _exit(1);
        for (unsigned i = 1; i < members; i++)
                if (fork() == 0)
                        for (;;)
                                pause();
        for (;;)
                pause();
}

/* Lines of a mount table: what each namespace's read costs. */
static unsigned table_lines(const char *path) {
        FILE *f = fopen(path, "re");
        unsigned n = 0;
        int c;

        if (!f)
                return 0;
        while ((c = fgetc(f)) != EOF)
                n += c == '\n';
        fclose(f);
        return n;
}

/* Until /proc lists n processes (the forks have run), at most 20 s. */
static void wait_for_processes(unsigned n) {
        for (int i = 0; i < 200; i++) {
                unsigned count = 0;
                DIR *d = opendir("/proc");
                struct dirent *de;

                if (!d)
                        die("/proc", -errno);
                while ((de = readdir(d)))
                        count += de->d_name[0] >= '1' && de->d_name[0] <= '9';
                closedir(d);
                if (count >= n)
                        return;
                usleep(100 * 1000);
        }
}

/* Runs as pid 1 of a new pid namespace, in a mount namespace of its own
 * with a fresh /proc: its /proc shows only what it spawns, and its own
 * ns/mnt link (the "host's" here) is readable. */
static int real_in_pid_namespace(unsigned processes, unsigned namespaces, unsigned runs) {
        NvmeBlockDevices none = {};
        MountNamespacesStats st = {};
        double t[64], c[64];

        if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
            mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
                printf("real namespaces: skipped (cannot mount a /proc of its own: %s)\n", strerror(errno));
                return 0;
        }
        for (unsigned i = 0; i < namespaces; i++)
                if (spawn_namespace(processes / namespaces) < 0)
                        die("fork", -errno);
        wait_for_processes(processes + 1);
        for (unsigned k = 0; k < runs; k++) {
                UsageScan s;
                double t0, c0;

                if (usage_scan_init(&s, &none) < 0 || usage_scan_build_index(&s) < 0)
                        die("scan", -ENOMEM);
                t0 = now_ms();
                c0 = cpu_ms();
                if (mount_namespaces_read(&s) < 0)
                        die("mount_namespaces_read", -ENOMEM);
                c[k] = cpu_ms() - c0;
                t[k] = now_ms() - t0;
                st = mount_namespaces_last_stats();
                usage_scan_done(&s);
        }
        printf("real namespaces: %u processes in %u new mount namespaces (in a pid namespace of its own, "
               "%u-line tables)\n", processes / namespaces * namespaces, namespaces,
               table_lines("/proc/self/mountinfo"));
        printf("  namespace scan (mount_namespaces_read): %8.2f ms wall, %8.2f ms CPU (medians of %u; %zu processes, "
               "%zu namespaces, %zu tables parsed)\n", median(t, runs), median(c, runs), runs, st.processes,
               st.namespaces, st.tables_read);
        fflush(stdout);
        return 0; /* our exit, as the pid namespace's init, kills every process in it */
}

static void part_real(unsigned processes, unsigned namespaces, unsigned runs) {
        pid_t init;

        if (geteuid() != 0) {
                printf("real namespaces: skipped (not root: unshare(CLONE_NEWPID|CLONE_NEWNS) needs CAP_SYS_ADMIN)\n");
                return;
        }
        fflush(stdout);
        if (unshare(CLONE_NEWPID) < 0) {
                printf("real namespaces: skipped (no new pid namespace: %s)\n", strerror(errno));
                return;
        }
        init = fork();
        if (init < 0)
                die("fork", -errno);
        if (init == 0)
                _exit(real_in_pid_namespace(processes, namespaces, runs));
        (void) waitpid(init, NULL, 0);
}

int main(int argc, char *argv[]) {
        unsigned processes = argc > 2 ? (unsigned) atoi(argv[1]) : 1000;
        unsigned namespaces = argc > 2 ? (unsigned) atoi(argv[2]) : 50;
        unsigned runs = argc > 3 ? (unsigned) atoi(argv[3]) : RUNS_DEFAULT;

        if (processes == 0 || namespaces == 0 || namespaces > processes || runs == 0 || runs > 64) {
                fprintf(stderr, "usage: bench-mount-namespaces [PROCESSES NAMESPACES [RUNS (1-64)]]\n");
                return 2;
        }
        part_fake(processes, namespaces, runs);
        part_real(processes, namespaces, runs);
        return 0;
}
