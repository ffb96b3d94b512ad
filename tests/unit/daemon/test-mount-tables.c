/* SPDX-License-Identifier: Apache-2.0 */
/* The daemon's one mountinfo watch (watch/mount-tables.h) on a real mount
 * table: this test's own, in a mount namespace of its own (criterion runs
 * each test in its own process), through a host root whose proc/1 is this
 * process. A change is told to each subscriber that listens, not to a deaf
 * one, and to one that listens again; the usage watch reads the table
 * through the same fd and calls its handler when a device mount comes,
 * while the guard's subscriber listens too. Skipped (with the reason) where no
 * private mount namespace can be made. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host-root.h"
#include "watch/mount-tables.h"
#include "watch/usage-watch.h"

static unsigned told_a, told_b, usage_calls;

static void on_a(MountTables *t, void *userdata) {
        told_a++;
}

static void on_b(MountTables *t, void *userdata) {
        told_b++;
}

static void on_usage(UsageWatch *w, void *userdata) {
        usage_calls++;
}

static int write_file(const char *path, const char *text) {
        int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;

        if (fd < 0)
                return -errno;
        if (write(fd, text, strlen(text)) < 0)
                r = -errno;
        close(fd);
        return r;
}

/* A mount namespace of our own: as root directly, otherwise inside a user
 * namespace mapping our uid. NULL, or why not. */
static const char *private_mounts(void) {
        char map[64];
        uid_t uid = getuid();
        gid_t gid = getgid();

        if (unshare(CLONE_NEWNS) < 0) {
                if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
                        return "no mount namespace of our own (unshare refused, user namespaces off?)";
                snprintf(map, sizeof(map), "0 %u 1", (unsigned) uid);
                if (write_file("/proc/self/uid_map", map) < 0)
                        return "cannot map our uid in a user namespace";
                (void) write_file("/proc/self/setgroups", "deny");
                snprintf(map, sizeof(map), "0 %u 1", (unsigned) gid);
                if (write_file("/proc/self/gid_map", map) < 0)
                        return "cannot map our gid in a user namespace";
        }
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                return "cannot make our mounts private";
        return NULL;
}

/* A host root in dir whose proc/1 is this process. */
static void root_is_us(const char *dir) {
        char path[4096], link[64];

        snprintf(path, sizeof(path), "%s/proc", dir);
        cr_assert_eq(mkdir(path, 0755), 0);
        snprintf(path, sizeof(path), "%s/proc/1", dir);
        snprintf(link, sizeof(link), "/proc/%d", (int) getpid());
        cr_assert_eq(symlink(link, path), 0);
        cr_assert_eq(host_root_set(dir), 0);
}

/* Runs the loop until *count reaches want; gives up after 5 s. */
static void run_until(sd_event *e, const unsigned *count, unsigned want) {
        for (int i = 0; i < 100 && *count < want; i++)
                cr_assert_geq(sd_event_run(e, 50 * 1000), 0);
}

/* Dispatches what is ready now, without waiting. */
static void run_ready(sd_event *e) {
        for (int i = 0; i < 10; i++)
                cr_assert_geq(sd_event_run(e, 0), 0);
}

static void toggle(const char *dir, const char *source, bool *mounted) {
        char path[4096];

        snprintf(path, sizeof(path), "%s/m", dir);
        (void) mkdir(path, 0755);
        if (*mounted)
                cr_assert_eq(umount2(path, 0), 0, "umount %s: %s", path, strerror(errno));
        else
                cr_assert_eq(mount(source, path, "tmpfs", 0, "size=1m"), 0, "mount %s: %s", path, strerror(errno));
        *mounted = !*mounted;
}

/* A private mount namespace, a host root in dir whose proc/1 is this
 * process, a loop and the tables; skips when there can be no such
 * namespace here. */
static void setup(char *dir, sd_event **e, MountTables **t) {
        const char *why;

        cr_assert_not_null(mkdtemp(dir));
        why = private_mounts();
        if (why) {
                rmdir(dir);
                cr_skip_test("%s", why);
        }
        root_is_us(dir);
        cr_assert_eq(sd_event_new(e), 0);
        cr_assert_eq(mount_tables_new(*e, t), 0);
}

static void teardown(const char *dir, sd_event *e, bool mounted) {
        char path[4096];

        sd_event_unref(e);
        host_root_set(NULL);
        snprintf(path, sizeof(path), "%s/m", dir);
        if (mounted)
                (void) umount2(path, 0);
        (void) rmdir(path);
        snprintf(path, sizeof(path), "%s/proc/1", dir);
        (void) unlink(path);
        snprintf(path, sizeof(path), "%s/proc", dir);
        (void) rmdir(path);
        (void) rmdir(dir);
}

Test(mount_tables, each_listener_is_told_and_no_deaf_one) {
        char dir[] = "/tmp/sg-mount-tables-XXXXXX";
        MountTablesSubscription *a = NULL, *b = NULL;
        MountTables *t = NULL;
        MountFingerprint fp;
        sd_event *e = NULL;
        bool mounted = false;

        setup(dir, &e, &t);
        cr_assert_eq(mount_tables_subscribe(t, on_a, NULL, &a), 0);
        cr_assert_eq(mount_tables_subscribe(t, on_b, NULL, &b), 0);

        cr_assert_eq(mount_tables_listen(a, true), 0);
        toggle(dir, "bench", &mounted);
        run_until(e, &told_a, 1);
        run_ready(e);
        cr_assert_eq(told_a, 1, "the listener is told once (%u)", told_a);
        cr_assert_eq(told_b, 0, "a deaf subscriber is not told (%u)", told_b);

        cr_assert_eq(mount_tables_listen(a, false), 0);
        toggle(dir, "bench", &mounted);
        run_ready(e);
        cr_assert_eq(told_a + told_b, 1, "nobody listens: nobody is told");

        cr_assert_eq(mount_tables_listen(b, true), 0);
        toggle(dir, "bench", &mounted);
        run_until(e, &told_b, 1);
        cr_assert_geq(told_b, 1, "listening again: told");
        cr_assert_eq(told_a, 1, "still deaf: not told");

        cr_assert_eq(mount_tables_fingerprint(t, &fp), 0);
        cr_assert_gt(fp.n_lines, 0, "the table is read through the watched fd");

        mount_tables_unsubscribe(a);
        mount_tables_unsubscribe(b);
        mount_tables_unref(t);
        teardown(dir, e, mounted);
}

Test(mount_tables, the_usage_watch_reads_through_the_one_watch) {
        char dir[] = "/tmp/sg-mount-tables-XXXXXX";
        MountTablesSubscription *guard = NULL;
        MountTables *t = NULL;
        UsageWatch *w = NULL;
        sd_event *e = NULL;
        bool mounted = false;

        setup(dir, &e, &t);
        cr_assert_eq(usage_watch_new(e, t, on_usage, NULL, &w, NULL), 0);
        cr_assert_eq(usage_watch_stats(w)->summaries, 1, "the baseline");

        /* A directory's tmpfs: the devices mounted stay the same. */
        toggle(dir, "bench", &mounted);
        for (int i = 0; i < 100 && usage_watch_stats(w)->summaries < 2; i++)
                cr_assert_geq(sd_event_run(e, 50 * 1000), 0);
        cr_assert_eq(usage_watch_stats(w)->summaries, 2, "one read for the change");
        cr_assert_eq(usage_calls, 0, "no device mounted or gone: no call");

        /* The guard listening too (blocked): both hear the next change. */
        cr_assert_eq(mount_tables_subscribe(t, on_a, NULL, &guard), 0);
        cr_assert_eq(mount_tables_listen(guard, true), 0);
        toggle(dir, "bench", &mounted);
        toggle(dir, "/dev/nvme9n1", &mounted); /* what a namespace's mount looks like */
        run_until(e, &usage_calls, 1);
        cr_assert_eq(usage_calls, 1, "a device mounted: the handler runs (%u)", usage_calls);
        cr_assert_geq(told_a, 1, "the guard was told too");

        usage_watch_free(w);
        mount_tables_unsubscribe(guard);
        mount_tables_unref(t);
        teardown(dir, e, mounted);
}
