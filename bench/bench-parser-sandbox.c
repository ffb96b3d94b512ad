/* SPDX-License-Identifier: Apache-2.0 */
/* bench-parser-sandbox: what the parser child costs per config.json, the
 * shipped code (crio_config_read_confined()) against the same read and
 * parse in-process, interleaved so the shared machine's load weighs on both
 * alike. The parent's heap is grown first (-m MiB, touched) to stand for a
 * daemon's: fork() copies page tables, so its cost grows with the parent.
 * Not a test: it prints numbers, it asserts nothing.
 *
 *   bench-parser-sandbox [-n RUNS] [-m MIB] [-k ENV_KIB]
 *
 * Output, one tab-separated line per contender:
 *   label runs median_us p90_us max_us
 * and the mean CPU time per call of each (wall time on a loaded machine is
 * mostly waiting for a core; the CPU time is what the call costs). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "host/crio.h"
#include "sandbox/crio-config-job.h"
#include "util/fileio.h"

static uint64_t now_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

/* CPU time of this process and its reaped children, user + system. */
static uint64_t cpu_usec(void) {
        struct rusage a, b;

        getrusage(RUSAGE_SELF, &a);
        getrusage(RUSAGE_CHILDREN, &b);
        return (uint64_t) (a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec + b.ru_stime.tv_sec) * 1000000ULL +
               (uint64_t) (a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec + b.ru_stime.tv_usec);
}

static int cmp(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return x < y ? -1 : x > y;
}

static void print(const char *label, uint64_t *t, size_t n) {
        qsort(t, n, sizeof(*t), cmp);
        printf("%s\t%zu\t%llu\t%llu\t%llu\n", label, n, (unsigned long long) t[n / 2],
               (unsigned long long) t[n * 9 / 10], (unsigned long long) t[n - 1]);
}

int main(int argc, char *argv[]) {
        static const char *const keys[] = { "ENABLE_NFSRDMA", "UNLOAD_STORAGE_MODULES",
                                            "RESTORE_DRIVER_ON_POD_TERMINATION", NULL };
        size_t runs = 300, mib = 16, env_kib = 2;
        char path[] = "/tmp/bench-parser-sandbox-XXXXXX";
        uint64_t *confined, *inproc, cpu_confined = 0, cpu_inproc = 0;
        char *heap;
        FILE *f;
        int opt, fd;

        while ((opt = getopt(argc, argv, "n:m:k:")) != -1) {
                if (opt == 'n')
                        runs = strtoul(optarg, NULL, 10);
                else if (opt == 'm')
                        mib = strtoul(optarg, NULL, 10);
                else if (opt == 'k')
                        env_kib = strtoul(optarg, NULL, 10);
                else {
                        fprintf(stderr, "usage: %s [-n RUNS] [-m MIB] [-k ENV_KIB]\n", argv[0]);
                        return 2;
                }
        }
        if (runs == 0)
                runs = 1;
        heap = malloc(mib * 1024 * 1024 + 1);
        if (!heap)
                return 1;
        memset(heap, 1, mib * 1024 * 1024 + 1);

        /* A driver container's config.json in CRI-O's shape: annotations,
         * an environment of env_kib KiB (tenants' can be larger). */
        fd = mkstemp(path);
        f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!f)
                return 1;
        fputs("{\"ociVersion\":\"1.0.2-dev\",\"process\":{\"args\":[\"/root/entrypoint.sh\"],\"env\":["
              "\"PATH=/usr/bin\",\"ENABLE_NFSRDMA=true\",\"UNLOAD_STORAGE_MODULES=true\"",
              f);
        for (size_t i = 0; i < env_kib * 1024 / 32; i++)
                fprintf(f, ",\"VARIABLE_%06zu=some-value-here\"", i);
        fputs("]},\"annotations\":{\"io.kubernetes.container.name\":\"mofed-container\","
              "\"io.kubernetes.cri-o.Created\":\"2026-12-02T14:32:10.5Z\","
              "\"io.kubernetes.pod.name\":\"mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p\","
              "\"io.kubernetes.pod.namespace\":\"nvidia-network-operator\","
              "\"io.kubernetes.pod.uid\":\"0b7c3f5e-2a1d-4c8e-9f6a-1e2d3c4b5a69\"}}\n",
              f);
        fclose(f);

        confined = calloc(runs, sizeof(*confined));
        inproc = calloc(runs, sizeof(*inproc));
        if (!confined || !inproc)
                return 1;
        for (size_t i = 0; i < runs; i++) {
                CrioConfig *c = NULL;
                char *text = NULL;
                size_t len = 0;
                uint64_t t0 = now_usec(), c0 = cpu_usec();

                if (crio_config_read_confined(path, keys, &c, NULL) < 0) {
                        fprintf(stderr, "bench-parser-sandbox: the confined read failed\n");
                        return 1;
                }
                confined[i] = now_usec() - t0;
                cpu_confined += cpu_usec() - c0;
                crio_config_free(c);
                c = NULL;

                t0 = now_usec();
                c0 = cpu_usec();
                if (read_regular_file(path, CRIO_CONFIG_MAX, &text, &len) < 0 || crio_config_parse(text, len, &c) < 0) {
                        fprintf(stderr, "bench-parser-sandbox: the in-process read failed\n");
                        return 1;
                }
                inproc[i] = now_usec() - t0;
                cpu_inproc += cpu_usec() - c0;
                crio_config_free(c);
                free(text);
        }
        printf("# parent heap %zu MiB touched, config.json with %zu KiB of environment\n", mib, env_kib);
        printf("label\truns\tmedian_us\tp90_us\tmax_us\n");
        print("confined", confined, runs);
        print("in-process", inproc, runs);
        printf("# CPU per call (parent + child, user + system): confined %llu us, in-process %llu us\n",
               (unsigned long long) (cpu_confined / runs), (unsigned long long) (cpu_inproc / runs));
        unlink(path);
        free(confined);
        free(inproc);
        /* Read back, so the touched heap is not optimised away. */
        opt = ((volatile char *) heap)[mib * 1024 * 1024];
        free(heap);
        return opt == 1 ? 0 : 1;
}
