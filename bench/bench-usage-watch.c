/* SPDX-License-Identifier: Apache-2.0 */
/* bench-usage-watch N [CHANGES] [IDLE_SECONDS]: the cost of the daemon's
 * always-on usage watch (daemon/watch/usage-watch.c on the daemon's one
 * mountinfo watch, daemon/watch/mount-tables.c: the shipped code) on a
 * mount table of N entries, in a private mount namespace of this process
 * (root needed: unshare + mount). The host root is pointed at a scratch
 * directory whose proc/1 is this process's /proc entry, so the watch polls
 * our own mountinfo as it polls PID 1's on a node.
 *
 * 1. CHANGES times (default 200): one mount-table change (a bind mount of
 *    a tmpfs directory, what a pod's volume looks like: no new device),
 *    then the event loop until the coalescing timer fired; CPU time of the
 *    loop only (CLOCK_THREAD_CPUTIME_ID around sd_event_run), per change.
 * 2. A burst: 100 changes in a row, then the loop: how many summaries.
 * 3. Sustained churn (CHURN_SECONDS, default 20; env CHURN_RATE changes a
 *    second, default 20): pod-like bind mounts and unmounts at a steady
 *    rate while the loop runs; the loop's CPU time per second of wall time
 *    (its share of one core) and its wake-ups a second. Every ~2 s of it, a
 *    tmpfs whose source is /dev/nvme9n1 is mounted or unmounted (what the
 *    fingerprint sees of a namespace's mount: a device source), and the
 *    time from that mount(2) to the handler's call is the pin's latency.
 * 4. Idle: IDLE_SECONDS (default 60) of the loop with no change: wake-ups.
 * Prints "key<TAB>value" lines; nothing is asserted. */
#include <errno.h>
#include <stdbool.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/host-root.h"
#include "watch/mount-tables.h"
#include "watch/usage-watch.h"
#include "usage/mount-fingerprint.h"

static unsigned fired;

static void on_change(UsageWatch *w, void *userdata) {
        fired++;
}

static double thread_cpu_us(void) {
        struct timespec ts;

        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double now_s(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;

        return x < y ? -1 : x > y;
}

static int mkdirs(const char *p);
static double run_until_summarised(sd_event *e, UsageWatch *w);

/* 3: CHURN_SECONDS of steady churn, NVMe-like mounts among it. */
static int churn(sd_event *e, UsageWatch *w, const char *base, unsigned n, unsigned seconds) {
        const char *rate_env = getenv("CHURN_RATE");
        double rate = rate_env ? atof(rate_env) : 20, t_start = now_s(), next = t_start, next_nvme = t_start + 1;
        double cpu = 0, lat[64], nvme_at = 0;
        unsigned i = 0, n_lat = 0;
        uint64_t wake0 = usage_watch_stats(w)->wakeups, sum0 = usage_watch_stats(w)->summaries;
        uint64_t scpu0 = usage_watch_stats(w)->summary_cpu_usec;
        unsigned fired0 = 0;
        bool nvme_mounted = false;
        char src[4096], path[4096], nvme[4096];

        snprintf(src, sizeof(src), "%s/t/src", base);
        snprintf(nvme, sizeof(nvme), "%s/nvme", base);
        if (mkdirs(nvme) < 0)
                return -1;
        while (now_s() - t_start < seconds) {
                double t = now_s(), c0;

                if (nvme_at == 0 && t >= next_nvme && n_lat < 64) {
                        if (nvme_mounted ? umount2(nvme, 0) < 0 : mount("/dev/nvme9n1", nvme, "tmpfs", 0, "size=1m") < 0) {
                                perror("nvme-like mount");
                                return -1;
                        }
                        nvme_mounted = !nvme_mounted;
                        nvme_at = now_s();
                        fired0 = fired;
                }
                if (t >= next) {
                        snprintf(path, sizeof(path), "%s/m/%u", base, (i / 2) % n);
                        if (i % 2 == 0 ? mount(src, path, NULL, MS_BIND, NULL) < 0 : umount2(path, 0) < 0) {
                                perror("churn");
                                return -1;
                        }
                        i++;
                        next += 1 / rate;
                }
                c0 = thread_cpu_us();
                (void) sd_event_run(e, (uint64_t) ((next > now_s() ? next - now_s() : 0) * 1e6) + 1);
                cpu += thread_cpu_us() - c0;
                if (nvme_at != 0 && fired != fired0) {
                        lat[n_lat++] = now_s() - nvme_at;
                        nvme_at = 0;
                        next_nvme = now_s() + 2;
                }
        }
        printf("churn_seconds\t%u\nchurn_rate_per_s\t%.0f\nchurn_changes\t%u\n", seconds, rate, i);
        printf("churn_cpu_share_percent\t%.2f\n", cpu / 1e4 / (now_s() - t_start));
        printf("churn_summary_cpu_share_percent\t%.2f\n",
               (usage_watch_stats(w)->summary_cpu_usec - scpu0) / 1e4 / (now_s() - t_start));
        printf("churn_wakeups_per_s\t%.1f\nchurn_summaries_per_s\t%.2f\n",
               (usage_watch_stats(w)->wakeups - wake0) / (now_s() - t_start),
               (usage_watch_stats(w)->summaries - sum0) / (now_s() - t_start));
        printf("churn_last_window_ms\t%.0f\n", usage_watch_stats(w)->last_window_usec / 1e3);
        qsort(lat, n_lat, sizeof(lat[0]), cmp_double);
        printf("pin_latency_samples\t%u\n", n_lat);
        if (n_lat > 0)
                printf("pin_latency_ms_median\t%.0f\npin_latency_ms_max\t%.0f\n", lat[n_lat / 2] * 1e3,
                       lat[n_lat - 1] * 1e3);
        if (nvme_at != 0)
                printf("pin_latency_unseen_at_end\t1\n");
        if (nvme_mounted)
                (void) umount2(nvme, 0);
        /* let the last window close before the idle part */
        (void) run_until_summarised(e, w);
        return 0;
}

static int mkdirs(const char *p) {
        char cmd[4096];

        snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", p);
        return system(cmd) == 0 ? 0 : -1;
}

/* Runs the loop until the coalescing timer has run (or 2 s); returns the
 * loop's CPU time in µs. */
static double run_until_summarised(sd_event *e, UsageWatch *w) {
        uint64_t before = usage_watch_stats(w)->summaries;
        double cpu = 0, deadline = now_s() + 2;

        while (usage_watch_stats(w)->summaries == before && now_s() < deadline) {
                double t0 = thread_cpu_us();

                (void) sd_event_run(e, 50 * 1000);
                cpu += thread_cpu_us() - t0;
        }
        return cpu;
}

int main(int argc, char *argv[]) {
        unsigned n = argc > 1 ? (unsigned) atoi(argv[1]) : 2500, changes = argc > 2 ? (unsigned) atoi(argv[2]) : 200;
        unsigned idle = argc > 3 ? (unsigned) atoi(argv[3]) : 60;
        char base[] = "/tmp/bench-usage-watch-XXXXXX", path[4096], link[4096];
        const char *missing = NULL;
        MountTables *tables = NULL;
        UsageWatch *w = NULL;
        sd_event *e = NULL;
        double cpu = 0, t0;
        uint64_t wake0;

        if (geteuid() != 0) {
                fprintf(stderr, "bench-usage-watch: needs root (unshare, mount)\n");
                return 77;
        }
        if (!mkdtemp(base) || unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
                perror("bench-usage-watch: private mount namespace");
                return 1;
        }
        snprintf(path, sizeof(path), "%s/t", base);
        if (mkdirs(path) < 0 || mount("bench", path, "tmpfs", 0, "size=1m") < 0) {
                perror("tmpfs");
                return 1;
        }
        snprintf(path, sizeof(path), "%s/t/src", base);
        mkdir(path, 0755);
        /* The table: N bind mounts of one tmpfs directory. */
        snprintf(path, sizeof(path), "%s/m", base);
        if (mkdirs(path) < 0)
                return 1;
        for (unsigned i = 0; i < n; i++) {
                snprintf(path, sizeof(path), "%s/m/%u", base, i);
                if (mkdir(path, 0755) < 0)
                        return 1;
        }
        for (unsigned i = 0; i < n; i++) {
                char src[4096];

                snprintf(src, sizeof(src), "%s/t/src", base);
                snprintf(path, sizeof(path), "%s/m/%u", base, i);
                if (mount(src, path, NULL, MS_BIND, NULL) < 0) {
                        perror("bind mount");
                        return 1;
                }
        }
        /* A root whose proc/1 is us, proc/swaps the real one. */
        snprintf(path, sizeof(path), "%s/root/proc", base);
        mkdirs(path);
        snprintf(path, sizeof(path), "%s/root/proc/1", base);
        snprintf(link, sizeof(link), "/proc/%d", (int) getpid());
        if (symlink(link, path) < 0)
                return 1;
        snprintf(path, sizeof(path), "%s/root/proc/swaps", base);
        if (symlink("/proc/swaps", path) < 0)
                return 1;
        snprintf(path, sizeof(path), "%s/root", base);
        host_root_set(path);

        if (sd_event_new(&e) < 0 || mount_tables_new(e, &tables) < 0 ||
            usage_watch_new(e, tables, on_change, NULL, &w, &missing) < 0 || missing) {
                fprintf(stderr, "bench-usage-watch: cannot watch (%s)\n", missing ?: "setup");
                return 1;
        }
        printf("mounts\t%u\n", n + 2);

        /* 1. One change at a time. */
        for (unsigned i = 0; i < changes; i++) {
                char src[4096];

                snprintf(src, sizeof(src), "%s/t/src", base);
                snprintf(path, sizeof(path), "%s/m/%u", base, (i / 2) % n); /* mount, then unmount it */
                if (i % 2 == 0 ? mount(src, path, NULL, MS_BIND, NULL) < 0 : umount2(path, 0) < 0) {
                        perror("change");
                        return 1;
                }
                cpu += run_until_summarised(e, w);
        }
        printf("changes\t%u\n", changes);
        printf("cpu_us_per_change\t%.0f\n", cpu / changes);
        printf("handler_calls\t%u\n", fired);

        /* 2. A burst inside one window. */
        {
                uint64_t s0 = usage_watch_stats(w)->summaries;
                char src[4096];

                snprintf(src, sizeof(src), "%s/t/src", base);
                for (unsigned i = 0; i < 100; i++) {
                        snprintf(path, sizeof(path), "%s/m/%u", base, (i / 2) % n);
                        if (i % 2 == 0 ? mount(src, path, NULL, MS_BIND, NULL) < 0 : umount2(path, 0) < 0) {
                                perror("burst");
                                return 1;
                        }
                }
                cpu = run_until_summarised(e, w);
                printf("burst_changes\t100\nburst_summaries\t%llu\nburst_cpu_us\t%.0f\n",
                       (unsigned long long) (usage_watch_stats(w)->summaries - s0), cpu);
        }

        /* The share of our own code: the summary of the same table, already read. */
        {
                FILE *f = fopen("/proc/self/mountinfo", "re");
                static char text[16 << 20];
                size_t len = f ? fread(text, 1, sizeof(text), f) : 0;
                MountFingerprint fp;

                if (f)
                        fclose(f);
                t0 = thread_cpu_us();
                for (int k = 0; k < 20; k++)
                        (void) mount_fingerprint_of_text(text, len, &fp);
                printf("summary_of_text_us\t%.0f\n", (thread_cpu_us() - t0) / 20);
                t0 = thread_cpu_us();
                for (int k = 0; k < 20; k++) {
                        f = fopen("/proc/self/mountinfo", "re");
                        while (f && fread(text, 1, sizeof(text), f) > 0)
                                ;
                        if (f)
                                fclose(f);
                }
                printf("kernel_read_of_table_us\t%.0f\n", (thread_cpu_us() - t0) / 20);
        }

        /* 3. Churn. */
        {
                const char *cs = getenv("CHURN_SECONDS");

                if (churn(e, w, base, n, cs ? (unsigned) atoi(cs) : 20) < 0)
                        return 1;
        }

        /* 4. Idle. */
        wake0 = usage_watch_stats(w)->wakeups;
        t0 = now_s();
        while (now_s() - t0 < idle)
                (void) sd_event_run(e, (uint64_t) ((idle - (now_s() - t0)) * 1e6) + 1);
        printf("idle_seconds\t%u\nidle_wakeups\t%llu\n", idle,
               (unsigned long long) (usage_watch_stats(w)->wakeups - wake0));
        usage_watch_free(w);
        mount_tables_unref(tables);
        sd_event_unref(e);
        return 0;
}
