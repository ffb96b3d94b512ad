/* SPDX-License-Identifier: Apache-2.0 */
/* bench-time: times commands side by side, interleaved, so that whatever
 * else the (shared, 2-core) machine does at a given moment weighs on every
 * contender alike. Not a test: it prints numbers, it asserts nothing.
 *
 *   bench-time [-n RUNS] [-w WARMUP] LABEL=COMMAND [LABEL=COMMAND...]
 *
 * COMMAND is split on blanks (no shell, so no shell start-up is timed);
 * " && " chains several programs into one sample, run one after the other
 * (lsblk && findmnt). Each run times every command once, starting with a
 * different one each time. The children's stdout and stderr go to
 * /dev/null. Wall time is CLOCK_MONOTONIC from before fork() to after the
 * last wait4(); CPU time and peak RSS come from wait4()'s rusage.
 *
 * Output, one tab-separated line per command:
 *   label runs wall_median_ms wall_min_ms wall_max_ms cpu_median_ms maxrss_median_kib exit_statuses
 * exit_statuses lists each distinct exit status seen ("0", "3", "0,3").
 * Exit status 1 when a command could not be run or died of a signal. */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_COMMANDS 16
#define MAX_STEPS 8
#define MAX_ARGS 64

typedef struct Step {
        char *argv[MAX_ARGS + 1];
} Step;

typedef struct Command {
        const char *label;
        Step steps[MAX_STEPS];
        size_t n_steps;
        double *wall_ms, *cpu_ms, *rss_kib;
        bool status_seen[256];
} Command;

static double now_ms(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;

        return x < y ? -1 : x > y;
}

static double median(double *v, size_t n) {
        qsort(v, n, sizeof(double), cmp_double);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* "label=prog a b && prog2 c" into steps; the spec string is modified. */
static int parse_command(char *spec, Command *c) {
        char *eq = strchr(spec, '='), *save = NULL;
        Step *s;
        size_t argc = 0;

        if (!eq || eq == spec)
                return -EINVAL;
        *eq = '\0';
        c->label = spec;
        c->n_steps = 1;
        s = &c->steps[0];
        for (char *t = strtok_r(eq + 1, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
                if (strcmp(t, "&&") == 0) {
                        if (argc == 0 || c->n_steps == MAX_STEPS)
                                return -EINVAL;
                        s = &c->steps[c->n_steps++];
                        argc = 0;
                        continue;
                }
                if (argc == MAX_ARGS)
                        return -E2BIG;
                s->argv[argc++] = t;
        }
        return argc == 0 ? -EINVAL : 0;
}

static int run_step(const Step *s, struct rusage *ru, int *status) {
        pid_t pid = fork();

        if (pid < 0)
                return -errno;
        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

                if (null >= 0) {
                        dup2(null, STDOUT_FILENO);
                        dup2(null, STDERR_FILENO);
                }
                execvp(s->argv[0], s->argv);
                _exit(127);
        }
        if (wait4(pid, status, 0, ru) < 0)
                return -errno;
        return 0;
}

/* One sample of a command: every step, one after the other. */
static int sample(Command *c, size_t run) {
        double cpu = 0, rss = 0, t0 = now_ms();
        int status = 0;

        for (size_t i = 0; i < c->n_steps; i++) {
                struct rusage ru = {};
                int r = run_step(&c->steps[i], &ru, &status);

                if (r < 0) {
                        fprintf(stderr, "bench-time: %s: %s\n", c->label, strerror(-r));
                        return r;
                }
                if (!WIFEXITED(status) || WEXITSTATUS(status) == 127) {
                        fprintf(stderr, "bench-time: %s: %s did not run to completion (status 0x%x)\n", c->label,
                                c->steps[i].argv[0], (unsigned) status);
                        return -ECHILD;
                }
                c->status_seen[WEXITSTATUS(status)] = true;
                cpu += (double) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
                       (double) (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
                if ((double) ru.ru_maxrss > rss)
                        rss = (double) ru.ru_maxrss;
        }
        if (run != SIZE_MAX) {
                c->wall_ms[run] = now_ms() - t0;
                c->cpu_ms[run] = cpu;
                c->rss_kib[run] = rss;
        }
        return 0;
}

static void print_command(Command *c, size_t runs) {
        double mn = 1e300, mx = 0;
        bool first = true;

        for (size_t i = 0; i < runs; i++) {
                if (c->wall_ms[i] < mn)
                        mn = c->wall_ms[i];
                if (c->wall_ms[i] > mx)
                        mx = c->wall_ms[i];
        }
        printf("%s\t%zu\t%.3f\t%.3f\t%.3f\t", c->label, runs, median(c->wall_ms, runs), mn, mx);
        printf("%.3f\t%.0f\t", median(c->cpu_ms, runs), median(c->rss_kib, runs));
        for (int s = 0; s < 256; s++)
                if (c->status_seen[s]) {
                        printf("%s%d", first ? "" : ",", s);
                        first = false;
                }
        putchar('\n');
}

static int usage(void) {
        fprintf(stderr, "usage: bench-time [-n RUNS] [-w WARMUP] LABEL=COMMAND [LABEL=COMMAND...]\n");
        return 2;
}

int main(int argc, char **argv) {
        static Command cmds[MAX_COMMANDS];
        size_t runs = 11, warmup = 2, n = 0;
        int opt;

        while ((opt = getopt(argc, argv, "n:w:")) >= 0)
                switch (opt) {
                case 'n':
                        runs = strtoul(optarg, NULL, 10);
                        break;
                case 'w':
                        warmup = strtoul(optarg, NULL, 10);
                        break;
                default:
                        return usage();
                }
        if (runs == 0 || optind >= argc || argc - optind > MAX_COMMANDS)
                return usage();
        for (int i = optind; i < argc; i++, n++) {
                Command *c = &cmds[n];

                if (parse_command(argv[i], c) < 0)
                        return usage();
                c->wall_ms = calloc(runs, sizeof(double));
                c->cpu_ms = calloc(runs, sizeof(double));
                c->rss_kib = calloc(runs, sizeof(double));
                if (!c->wall_ms || !c->cpu_ms || !c->rss_kib)
                        return 1;
        }
        /* Warm-up: page cache, dentries, the dynamic loader's work. */
        for (size_t w = 0; w < warmup; w++)
                for (size_t i = 0; i < n; i++)
                        if (sample(&cmds[i], SIZE_MAX) < 0)
                                return 1;
        for (size_t run = 0; run < runs; run++)
                for (size_t k = 0; k < n; k++)
                        if (sample(&cmds[(run + k) % n], run) < 0)
                                return 1;
        for (size_t i = 0; i < n; i++)
                print_command(&cmds[i], runs);
        return 0;
}
