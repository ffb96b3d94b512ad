/* SPDX-License-Identifier: Apache-2.0 */
/* The exec watch's runtime fifos (watch/exec-watch.h) on a scratch root: a
 * followed container whose exec.fifo goes makes the handler run with its
 * pid at once and a few more times, then the follow stops covering it; a
 * container without a fifo is not covered (the caller looks on its own). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/host-root.h"
#include "watch/exec-watch.h"

#define ID_RUNC "aaaa2a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170615e4d3"
#define ID_NONE "bbbb2a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170615e4d3"

static char root[] = "/tmp/test-exec-watch-XXXXXX";
static unsigned calls;
static pid_t last_pid;

static void on_exec(ExecWatch *w, pid_t pid, void *userdata) {
        calls++;
        last_pid = pid;
}

static void make_fifo(const char *runtime, const char *id) {
        char p[512];

        snprintf(p, sizeof(p), "%s/run", root);
        (void) mkdir(p, 0755);
        snprintf(p, sizeof(p), "%s/run/%s", root, runtime);
        (void) mkdir(p, 0700);
        snprintf(p, sizeof(p), "%s/run/%s/%s", root, runtime, id);
        cr_assert_eq(mkdir(p, 0700), 0);
        snprintf(p, sizeof(p), "%s/run/%s/%s/exec.fifo", root, runtime, id);
        cr_assert_eq(mkfifo(p, 0600), 0);
}

/* Runs the loop until cond or 10 s (a bound, not an expectation). */
static void run_until(sd_event *e, bool (*cond)(void)) {
        time_t end = time(NULL) + 10;

        while (!cond() && time(NULL) < end)
                cr_assert_geq(sd_event_run(e, 100 * 1000), 0);
}

static bool called(void) {
        return calls > 0;
}

static ExecWatch *watch_for_cond;
static bool uncovered(void) {
        return exec_watch_follow(watch_for_cond, ID_RUNC, 4242) == 0;
}

Test(exec_watch, fifo_removal_calls_the_handler_then_stops_covering) {
        sd_event *e = NULL;
        ExecWatch *w = NULL;
        char p[512];

        cr_assert_not_null(mkdtemp(root));
        cr_assert_eq(host_root_set(root), 0);
        make_fifo("runc", ID_RUNC);
        cr_assert_geq(sd_event_new(&e), 0);
        cr_assert_eq(exec_watch_new(e, on_exec, NULL, &w), 0);

        cr_assert_eq(exec_watch_follow(w, ID_RUNC, 4242), 1, "a created container with its fifo is covered");
        cr_assert_eq(exec_watch_follow(w, ID_RUNC, 4242), 1, "following again changes nothing");
        cr_assert_eq(exec_watch_follow(w, ID_NONE, 4343), 0, "no fifo under any root: not covered");
        cr_assert(strstr(exec_watch_followed_path(w, ID_RUNC), "/run/runc/" ID_RUNC "/exec.fifo"));

        /* nothing happens while the fifo stays */
        cr_assert_geq(sd_event_run(e, 50 * 1000), 0);
        cr_assert_eq(calls, 0);

        snprintf(p, sizeof(p), "%s/run/runc/%s/exec.fifo", root, ID_RUNC);
        cr_assert_eq(unlink(p), 0);
        run_until(e, called);
        cr_assert_eq(calls, 1, "the removal makes the handler run");
        cr_assert_eq(last_pid, 4242);
        cr_assert_eq(exec_watch_follow(w, ID_RUNC, 4242), 1, "covered while the looks after the removal run");

        watch_for_cond = w;
        run_until(e, uncovered);
        cr_assert_eq(exec_watch_follow(w, ID_RUNC, 4242), 0, "the looks are over: the caller looks on its own");
        cr_assert_gt(calls, 1, "looked again after the removal (crun execs after it)");

        exec_watch_forget(w, ID_RUNC);
        exec_watch_forget(w, ID_RUNC); /* twice: nothing */
        exec_watch_free(w);
        sd_event_unref(e);
        snprintf(p, sizeof(p), "rm -rf '%s'", root);
        (void) system(p);
}
