/* SPDX-License-Identifier: Apache-2.0 */
/* Stress: a new driver container whose store entry is created
 * while the earlier one's vanishes must be followed, in every order.
 *
 * The ContainerStore (daemon/container/container-store.h) runs on its own
 * sd-event loop over a fake root (host_root_set): CRI-O's
 * overlay-containers/<id>/userdata/{config.json,pidfile} as CRI-O lays it
 * out (config.json and pidfile written whole and renamed in, as
 * tests/daemon/daemon-lifecycle-fakeroot.sh does) and /proc/<pid> files of a
 * started, privileged container (status, ns/user, exe, cgroup: the shape
 * fake-node's `container` writes). Each iteration, container A (followed,
 * reported) is replaced by container B, by a second thread that does the
 * file-system steps while the main thread runs the event loop, so the
 * store's events are handled in between the steps, not after them:
 *
 *   0 remove-then-create   A's directory removed (rm -rf order), then B created
 *   1 create-then-remove   B created, then A removed
 *   2 interleaved          A's and B's steps alternate, no pause (the same millisecond)
 *   3 pidfile-first        A's pidfile goes, the loop sees it, then A and B as in 0
 *   4 userdata-first       A's files and userdata/ go, B's directories appear, then A's
 *                          directory goes and B's files are written
 *   5 overflow             as 0, and the next read of an inotify fd returns
 *                          IN_Q_OVERFLOW in place of the events it read (the
 *                          kernel's answer to a full queue: events lost, one
 *                          overflow event; inotify(7))
 *   6 watch-fails-once     as 0, and the first inotify_add_watch() of a path of
 *                          B fails with ENOSPC (fs.inotify.max_user_watches
 *                          reached on a busy node): B must be followed anyway
 *                          once the watch can be had
 *   7 gone-before-watch    as 0, and the first inotify_add_watch() of a path of
 *                          A fails with ENOENT, as when A's directory goes
 *                          between the look and the watch: the normal end of
 *                          a container, no warning about it
 *
 * After the steps, the loop is run until nothing is pending (no time in
 * the check: the kernel has queued every event by then, and what the store
 * does with them needs no timer), then: B was reported with its pid, A was
 * reported removed, nothing else is followed. A store that lost B fails here
 * and says in which iteration and order.
 *
 * Usage: store-race-stress [ITERATIONS [ORDER]] (default 300, every order in
 * turn; ORDER 0-7 runs only that one). */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "container/container-store.h"
#include "host/host-root.h"
#include "util/macro.h"

#define N_ORDERS 8
static const char *const order_name[N_ORDERS] = {
        "remove-then-create", "create-then-remove", "interleaved", "pidfile-first", "userdata-first", "overflow",
        "watch-fails-once", "gone-before-watch",
};

static char root[64];
static char store[160];
static atomic_int inject_overflow;
static atomic_int steps_done;

/* The read(2) of every inotify fd of this process (sd-event's and the
 * store's own) goes through here; exported (-rdynamic) so that libsystemd's
 * calls come here too. */
ssize_t read(int fd, void *buf, size_t n) {
        static ssize_t (*real_read)(int, void *, size_t);
        char link[64], target[64];
        ssize_t r, l;

        if (!real_read)
                real_read = (ssize_t (*)(int, void *, size_t)) dlsym(RTLD_NEXT, "read");
        r = real_read(fd, buf, n);
        if (r <= 0 || !atomic_load(&inject_overflow) || n < sizeof(struct inotify_event))
                return r;
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        l = readlink(link, target, sizeof(target) - 1);
        if (l < 0)
                return r;
        target[l] = '\0';
        if (strcmp(target, "anon_inode:inotify") != 0 || !atomic_exchange(&inject_overflow, 0))
                return r;
        /* The events just read are lost; the overflow event stands for them. */
        memset(buf, 0, sizeof(struct inotify_event));
        ((struct inotify_event *) buf)->wd = -1;
        ((struct inotify_event *) buf)->mask = IN_Q_OVERFLOW;
        return (ssize_t) sizeof(struct inotify_event);
}

static void die(const char *what) {
        fprintf(stderr, "store-race-stress: %s: %s\n", what, strerror(errno));
        exit(99);
}

static void write_file(const char *path, const char *text) {
        FILE *f = fopen(path, "we");

        if (!f || fputs(text, f) < 0 || fclose(f) != 0)
                die(path);
}

static void make_id(unsigned i, char id[65]) {
        snprintf(id, 65, "%08x%056x", 0xc0de0000U + i, i);
}

/* /proc/<pid> of a started, privileged container in the host's user namespace. */
static void make_proc(pid_t pid, const char *id) {
        char p[768], q[768], t[256];

        snprintf(p, sizeof(p), "%s/proc/%d/ns", root, (int) pid);
        if (mkdir(p, 0755) < 0 && errno != EEXIST) {
                snprintf(q, sizeof(q), "%s/proc/%d", root, (int) pid);
                if (mkdir(q, 0755) < 0 || mkdir(p, 0755) < 0)
                        die(p);
        }
        snprintf(p, sizeof(p), "%s/proc/%d/status", root, (int) pid);
        write_file(p, "Name:\tentrypoint\nCapEff:\t000001ffffffffff\n");
        snprintf(p, sizeof(p), "%s/proc/%d/cgroup", root, (int) pid);
        snprintf(t, sizeof(t), "0::/kubepods.slice/kubepods-pod1.slice/crio-%s.scope\n", id);
        write_file(p, t);
        snprintf(p, sizeof(p), "%s/proc/%d/exe", root, (int) pid);
        if (symlink("/usr/bin/bash", p) < 0 && errno != EEXIST)
                die(p);
        snprintf(p, sizeof(p), "%s/proc/1/ns/user", root);
        snprintf(q, sizeof(q), "%s/proc/%d/ns/user", root, (int) pid);
        if (link(p, q) < 0 && errno != EEXIST)
                die(q);
}

typedef struct Container {
        char id[65];
        pid_t pid;
        char dir[700], userdata[720], config[740], pidfile[740];
} Container;

static void container_init(Container *c, unsigned i) {
        make_id(i, c->id);
        c->pid = (pid_t) (1000 + i);
        snprintf(c->dir, sizeof(c->dir), "%s/%s", store, c->id);
        snprintf(c->userdata, sizeof(c->userdata), "%s/userdata", c->dir);
        snprintf(c->config, sizeof(c->config), "%s/config.json", c->userdata);
        snprintf(c->pidfile, sizeof(c->pidfile), "%s/pidfile", c->userdata);
}

static void mkdir_or_die(const char *p) {
        if (mkdir(p, 0700) < 0)
                die(p);
}

static void write_renamed(const char *path, const char *text) {
        char tmp[800];

        snprintf(tmp, sizeof(tmp), "%s.tmp", path);
        write_file(tmp, text);
        if (rename(tmp, path) < 0)
                die(path);
}

static void write_config(const Container *c) {
        char json[1024];

        snprintf(json, sizeof(json),
                 "{\"ociVersion\":\"1.0.2-dev\",\"process\":{\"env\":[\"PATH=/usr/bin\"]},"
                 "\"annotations\":{\"io.kubernetes.container.name\":\"mofed-container\","
                 "\"io.kubernetes.pod.name\":\"mofed-%.5s\",\"io.kubernetes.pod.namespace\":\"nvidia-network-operator\"}}",
                 c->id);
        write_renamed(c->config, json);
}

static void write_pidfile(const Container *c) {
        char t[32];

        snprintf(t, sizeof(t), "%d\n", (int) c->pid);
        write_renamed(c->pidfile, t);
}

static void unlink_or_die(const char *p) {
        if (unlink(p) < 0)
                die(p);
}

static void rmdir_or_die(const char *p) {
        if (rmdir(p) < 0)
                die(p);
}

static unsigned *gap_seed;
static void gap(unsigned *seed);

static void create_all(const Container *c) {
        mkdir_or_die(c->dir);
        gap(gap_seed);
        mkdir_or_die(c->userdata);
        gap(gap_seed);
        write_config(c);
        gap(gap_seed);
        write_pidfile(c);
}

/* rm -rf's order: the files, then userdata/, then the directory. */
static void remove_all_files(const Container *c) {
        unlink_or_die(c->pidfile);
        gap(gap_seed);
        unlink_or_die(c->config);
        gap(gap_seed);
        rmdir_or_die(c->userdata);
        gap(gap_seed);
        rmdir_or_die(c->dir);
}

typedef struct Step {
        int order;
        unsigned seed;
        const Container *a, *b;
} Step;

/* A pause of 0 to 1.5 ms, in half of the gaps between steps: the loop
 * handles some steps one by one and some in a batch. */
static void gap(unsigned *seed) {
        unsigned r;

        if (!seed)
                return; /* the first container: no steps to interleave with */
        r = (unsigned) rand_r(seed);
        if (r & 1)
                usleep((r >> 1) % 1500);
}

static void *steps(void *userdata) {
        const Step *s = userdata;
        unsigned seed = s->seed;

        gap_seed = &seed;

        switch (s->order) {
        case 0:
                remove_all_files(s->a);
                gap(&seed);
                create_all(s->b);
                break;
        case 1:
                create_all(s->b);
                remove_all_files(s->a);
                break;
        case 2:
                unlink_or_die(s->a->pidfile);
                mkdir_or_die(s->b->dir);
                unlink_or_die(s->a->config);
                mkdir_or_die(s->b->userdata);
                rmdir_or_die(s->a->userdata);
                write_config(s->b);
                rmdir_or_die(s->a->dir);
                write_pidfile(s->b);
                break;
        case 3:
                unlink_or_die(s->a->pidfile);
                usleep(2000);
                unlink_or_die(s->a->config);
                rmdir_or_die(s->a->userdata);
                rmdir_or_die(s->a->dir);
                create_all(s->b);
                break;
        case 4:
                unlink_or_die(s->a->pidfile);
                unlink_or_die(s->a->config);
                rmdir_or_die(s->a->userdata);
                gap(&seed);
                mkdir_or_die(s->b->dir);
                mkdir_or_die(s->b->userdata);
                gap(&seed);
                rmdir_or_die(s->a->dir);
                gap(&seed);
                write_config(s->b);
                write_pidfile(s->b);
                break;
        case 5:
                atomic_store(&inject_overflow, 1);
                remove_all_files(s->a);
                create_all(s->b);
                break;
        case 6:
        case 7:
                /* the fault is armed by main before the steps */
                remove_all_files(s->a);
                gap(&seed);
                create_all(s->b);
                break;
        }
        gap_seed = NULL;
        atomic_store(&steps_done, 1);
        return NULL;
}

/* inotify_add_watch(2) of this process, sd-event's ("/proc/self/fd/<n>"
 * of an O_PATH fd) and the store's: fails once with fail_errno for the
 * first path holding fail_id. */
static char fail_id[65];
static atomic_int fail_errno;

int inotify_add_watch(int fd, const char *path, uint32_t mask) {
        static int (*real_add)(int, const char *, uint32_t);
        char target[1024];
        const char *p = path;
        ssize_t l;
        int e;

        if (!real_add)
                real_add = (int (*)(int, const char *, uint32_t)) dlsym(RTLD_NEXT, "inotify_add_watch");
        if (atomic_load(&fail_errno) && strncmp(path, "/proc/self/fd/", 14) == 0 &&
            (l = readlink(path, target, sizeof(target) - 1)) >= 0) {
                target[l] = '\0';
                p = target;
        }
        if (atomic_load(&fail_errno) && strstr(p, fail_id) && (e = atomic_exchange(&fail_errno, 0))) {
                errno = e;
                return -1;
        }
        return real_add(fd, path, mask);
}

/* What the store told. */
static char reported_id[65];
static pid_t reported_pid;
static char removed_id[65];
static unsigned n_events;
static sd_event *event;

static bool want_all(const ContainerIdentity *c, void *userdata) {
        return true;
}

static void on_store(ContainerStore *s, ContainerStoreEvent ev, const ContainerIdentity *c, pid_t pid,
                     void *userdata) {
        n_events++;
        /* The manager's work on an event takes time (module calls): the
         * steps go on meanwhile. */
        usleep((unsigned) (n_events * 7919U) % 3000U);
        if (ev == CONTAINER_STORE_PID) {
                snprintf(reported_id, sizeof(reported_id), "%s", c->id);
                reported_pid = pid;
        } else
                snprintf(removed_id, sizeof(removed_id), "%s", c->id);
}

/* Until nothing is pending: every event the steps made is in the kernel's
 * queue by now, and handling them needs no timer. A few empty rounds in a
 * row, as one round may only move events from the fd into sd-event's
 * buffer. A loop that never gets idle is wedged (an event that is never
 * consumed): false, and the run ends there. */
static bool drain(sd_event *e) {
        unsigned rounds = 0;

        for (int idle = 0; idle < 3; rounds++) {
                int r;

                if (rounds > 200000)
                        return false;
                r = sd_event_run(e, 0);
                if (r < 0) {
                        errno = -r;
                        die("sd_event_run");
                }
                idle = r == 0 ? idle + 1 : 0;
        }
        return true;
}

/* An iteration that never ends (the loop stuck inside sd-event, as the
 * store once was with a watch that failed to re-arm) is a
 * failure that says where, not a hang until meson's timeout. */
static char wedged_msg[160];

static void on_alarm(int sig) {
        (void) !write(STDOUT_FILENO, wedged_msg, strlen(wedged_msg));
        _exit(1);
}

static bool converged(const Container *a, const Container *b) {
        return streq(reported_id, b->id) && reported_pid == b->pid && streq(removed_id, a->id);
}

/* A watch that could not be had is retried by the store on a timer: give
 * it that long and more, up to a bound (the test's own deadline for "never",
 * not a measure of speed). */
static bool settled(const Container *a, const Container *b) {
        for (int i = 0; i < 50 && !converged(a, b); i++)
                (void) sd_event_run(event, 100 * 1000);
        return converged(a, b);
}

/* The store's warnings that must not be in the run's log: a container that
 * vanished is no error, so none of its lines says "cannot watch" or "cannot
 * use" for a file or directory that is no longer there. A watch that fails
 * with ENOSPC (watch-fails-once) is worth its warning and is not counted. */
static const char *const vanished_warning[] = { "cannot watch", "cannot use" };
static const char vanished_errno[] = "No such file or directory";

static unsigned count_vanished_warnings(const char *log) {
        char line[4096];
        unsigned n = 0;
        FILE *f = fopen(log, "re");

        if (!f)
                die(log);
        while (fgets(line, sizeof(line), f))
                for (size_t i = 0; i < ELEMENTSOF(vanished_warning); i++)
                        if (strstr(line, vanished_warning[i]) && strstr(line, vanished_errno)) {
                                n++;
                                break;
                        }
        fclose(f);
        return n;
}

int main(int argc, char **argv) {
        unsigned iterations = argc > 1 ? (unsigned) strtoul(argv[1], NULL, 10) : 300;
        int only = argc > 2 ? atoi(argv[2]) : -1;
        unsigned failures = 0, per_order_fail[N_ORDERS] = { 0 };
        sd_event *e = NULL;
        ContainerStore *s = NULL;
        char log[128];
        unsigned vanished;
        Container a, b;
        char p[1024];

        setvbuf(stdout, NULL, _IOLBF, 0);
        signal(SIGALRM, on_alarm);
        snprintf(root, sizeof(root), "/tmp/sg-store-race-XXXXXX");
        if (!mkdtemp(root))
                die("mkdtemp");
        snprintf(store, sizeof(store), "%s/run/containers/storage/overlay-containers", root);
        snprintf(p, sizeof(p), "mkdir -p '%s' '%s/proc/1/ns'", store, root);
        if (system(p) != 0)
                die("mkdir -p");
        snprintf(p, sizeof(p), "%s/proc/1/ns/user", root);
        write_file(p, "user:[4026531837]\n");
        if (host_root_set(root) < 0 || sd_event_new(&e) < 0)
                die("setup");
        event = e;
        /* The store's journal lines go to a file (hundreds of them), read at the end. */
        snprintf(log, sizeof(log), "%s.log", root);
        if (!freopen(log, "we", stderr))
                die(log);
        snprintf(p, sizeof(p), "%s/run/containers/storage", root);
        if (container_store_new(e, p, want_all, on_store, NULL, &s) < 0)
                die("container_store_new");

        container_init(&a, 0);
        make_proc(a.pid, a.id);
        create_all(&a);
        (void) drain(e);
        if (strcmp(reported_id, a.id) != 0) {
                fprintf(stderr, "FAIL: the first container was not reported\n");
                return 1;
        }

        for (unsigned i = 1; i <= iterations; i++) {
                Step step = { .order = only >= 0 && only < N_ORDERS ? only : (int) (i % N_ORDERS), .seed = i * 2654435761U, .a = &a, .b = &b };
                pthread_t t;
                bool ok;

                snprintf(wedged_msg, sizeof(wedged_msg),
                         "FAIL [%u %s]: the iteration never ended (the event loop is wedged)\n", i,
                         order_name[step.order]);
                alarm(60);
                container_init(&b, i);
                make_proc(b.pid, b.id);
                reported_id[0] = removed_id[0] = '\0';
                reported_pid = 0;
                atomic_store(&steps_done, 0);
                if (step.order == 6 || step.order == 7) {
                        snprintf(fail_id, sizeof(fail_id), "%s", step.order == 6 ? b.id : a.id);
                        atomic_store(&fail_errno, step.order == 6 ? ENOSPC : ENOENT);
                }
                if (pthread_create(&t, NULL, steps, &step) != 0)
                        die("pthread_create");
                /* Handle events while the steps run: the interleavings. */
                while (!atomic_load(&steps_done))
                        (void) sd_event_run(e, 200);
                pthread_join(t, NULL);
                atomic_store(&inject_overflow, 0);
                if (!drain(e)) {
                        printf("FAIL [%u %s]: the event loop never gets idle: the store is wedged\n", i,
                               order_name[step.order]);
                        failures++;
                        per_order_fail[step.order]++;
                        break;
                }
                ok = settled(&a, &b);
                atomic_store(&fail_errno, 0);
                if (!ok) {
                        failures++;
                        per_order_fail[step.order]++;
                        if (failures <= 10)
                                printf("FAIL [%u %s]: B %.12s %s (reported: '%.12s' pid %d), A %.12s %s\n", i,
                                       order_name[step.order], b.id,
                                       streq(reported_id, b.id) ? "reported" : "NOT reported", reported_id,
                                       (int) reported_pid, a.id,
                                       streq(removed_id, a.id) ? "removed" : "NOT reported removed");
                        /* Start the next iteration from a known store: look again. */
                        (void) container_store_rescan(s);
                        (void) drain(e);
                }
                a = b;
        }
        alarm(0);
        for (int o = 0; o < N_ORDERS; o++)
                printf("%-20s %u failed\n", order_name[o], per_order_fail[o]);
        fflush(stderr);
        vanished = count_vanished_warnings(log);
        if (vanished) {
                printf("FAIL: %u warnings for containers that were only removed, e.g.:\n", vanished);
                snprintf(p, sizeof(p), "grep -m3 -E 'cannot (watch|use).*%s' '%s' | cut -c1-300", vanished_errno,
                         log);
                (void) system(p);
                failures++;
        }
        printf("%u iterations, %u failed\n", iterations, failures);
        unlink(log);
        container_store_free(s);
        sd_event_unref(e);
        snprintf(p, sizeof(p), "rm -rf '%s'", root);
        (void) system(p);
        return failures ? 1 : 0;
}
