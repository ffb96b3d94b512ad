/* SPDX-License-Identifier: Apache-2.0 */
/* The blockers' pid-exit watch (watch/pid-exit-watch.h): real child
 * processes; the handler runs once with the pid of the one that exits,
 * never for one no longer followed, and at once for a pid already gone. */
#include <criterion/criterion.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "watch/pid-exit-watch.h"

static unsigned calls;
static pid_t last;

static void on_exit_pid(PidExitWatch *w, pid_t pid, void *userdata) {
        calls++;
        last = pid;
}

static pid_t child(void) {
        pid_t p = fork();

        cr_assert_geq(p, 0);
        if (p == 0)
                for (;;)
                        pause();
        return p;
}

/* Runs the loop until the handler ran `want` times or 2 s passed. */
static void run_until(sd_event *e, unsigned want) {
        for (int i = 0; i < 200 && calls < want; i++)
                cr_assert_geq(sd_event_run(e, 10 * 1000), 0);
}

Test(pid_exit_watch, follows_and_forgets) {
        sd_event *e = NULL;
        PidExitWatch *w = NULL;
        pid_t a = child(), b = child(), gone = child();
        pid_t both[] = { a, b }, only_b[] = { b }, with_gone[] = { gone };

        kill(gone, SIGKILL);
        waitpid(gone, NULL, 0);
        cr_assert_eq(sd_event_new(&e), 0);
        cr_assert_eq(pid_exit_watch_new(e, on_exit_pid, NULL, &w), 0);
        cr_assert_eq(pid_exit_watch_set(w, with_gone, 1), 0);
        cr_assert_eq(pid_exit_watch_count(w), 0, "a pid of no process is not followed");
        cr_assert_eq(calls, 1, "but its exit counts as seen: it went after the check that named it");
        cr_assert_eq(last, gone);
        calls = 0;

        cr_assert_eq(pid_exit_watch_set(w, both, 2), 0);
        cr_assert_eq(pid_exit_watch_count(w), 2);
        cr_assert_eq(pid_exit_watch_set(w, only_b, 1), 0);
        cr_assert_eq(pid_exit_watch_count(w), 1);
        kill(a, SIGKILL); /* no longer followed: no call */
        waitpid(a, NULL, 0);
        run_until(e, 1);
        cr_assert_eq(calls, 0);

        kill(b, SIGKILL);
        waitpid(b, NULL, 0);
        run_until(e, 1);
        cr_assert_eq(calls, 1);
        cr_assert_eq(last, b);
        run_until(e, 2);
        cr_assert_eq(calls, 1, "once per exit");

        cr_assert_eq(pid_exit_watch_set(w, NULL, 0), 0);
        cr_assert_eq(pid_exit_watch_count(w), 0);
        pid_exit_watch_free(w);
        sd_event_unref(e);
}
