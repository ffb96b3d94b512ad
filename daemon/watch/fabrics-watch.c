/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host/host-root.h"
#include "publish/log.h"
#include "util/fileio.h"
#include "watch/fabrics-watch.h"
#include "watch/path-watch.h"

#define RESULT_MAX (1024 * 1024)

struct FabricsWatch {
        sd_event *event;
        char *request_path;
        char *result_path;
        PathWatch *result;
        sd_event_source *deadline;
        FabricsWatchHandler handler;
        void *userdata;
        const char *busy;       /* static verb name while awaited */
        uint64_t token;
        uint64_t asked_usec;    /* CLOCK_BOOTTIME at the request, for the deadline's message */
        uint64_t test_deadline_usec; /* fake root only: every deadline (a silent unit in seconds) */
};

static uint64_t now_usec(clockid_t clock) {
        struct timespec ts;

        clock_gettime(clock, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

static void finish(FabricsWatch *w, const FabricsResult *res, const char *error) {
        const char *verb = w->busy;

        w->busy = NULL;
        (void) sd_event_source_set_enabled(w->deadline, SD_EVENT_OFF);
        w->handler(w, verb, res, error, w->userdata);
}

/* The result file as it is now: the answer when it carries our token. */
static void look(FabricsWatch *w) {
        _cleanup_(fabrics_result_freep) FabricsResult *res = NULL;
        _cleanup_free_ char *text = NULL, *error = NULL, *failed = NULL;
        int r;

        if (!w->busy)
                return;
        r = read_regular_file(w->result_path, RESULT_MAX, &text, NULL);
        if (r == -ENOENT)
                return;
        if (r < 0) {
                log_debug_errno(r, "Cannot read %s yet: %m", w->result_path);
                return;
        }
        if (fabrics_result_peek_token(text) != w->token && fabrics_result_peek_token(text) != 0)
                return; /* an earlier answer: ours is still to come */
        r = fabrics_result_parse(w->result_path, text, &res, &error);
        if (r == -ENOMEM) {
                log_oom();
                return;
        }
        if (r < 0) {
                if (fabrics_result_peek_token(text) != w->token)
                        return;
                if (asprintf(&failed, "unreadable answer of " FABRICS_UNIT ": %s", error) < 0)
                        failed = NULL;
                finish(w, NULL, failed ?: error);
                return;
        }
        if (res->token != w->token || !streq(res->verb, w->busy))
                return;
        if (res->error &&
            asprintf(&failed, "%s failed: %s (journalctl -u " FABRICS_UNIT ")", res->verb, res->error) < 0)
                failed = NULL;
        finish(w, res, res->error ? failed ?: res->error : NULL);
}

static void on_result(PathWatch *p, bool exists, void *userdata) {
        if (exists)
                look(userdata);
}

static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata) {
        FabricsWatch *w = userdata;
        _cleanup_free_ char *why = NULL;

        if (!w->busy)
                return 0;
        look(w); /* an answer whose event we have not read yet */
        if (!w->busy)
                return 0;
        /* Left alone, a unit started later would act on a stale request. */
        if (unlink(w->request_path) < 0 && errno != ENOENT)
                log_debug_errno(errno, "Cannot remove %s: %m", w->request_path);
        if (asprintf(&why,
                     FABRICS_UNIT ".service did not answer the %s request (token %" PRIu64 ") within %" PRIu64
                     " s: not installed, failed or stuck; see journalctl -u " FABRICS_UNIT,
                     w->busy, w->token, (uint64_t) ((usec - w->asked_usec) / 1000000)) < 0)
                why = NULL;
        finish(w, NULL, why ?: "no answer from " FABRICS_UNIT ".service (journalctl -u " FABRICS_UNIT ")");
        return 0;
}

int fabrics_watch_new(sd_event *e, FabricsWatchHandler handler, void *userdata, FabricsWatch **ret) {
        _cleanup_(fabrics_watch_freep) FabricsWatch *w = calloc(1, sizeof(*w));
        int r;

        if (!w)
                return -ENOMEM;
        w->event = sd_event_ref(e);
        w->handler = handler;
        w->userdata = userdata;
        if (host_path(WATCH_FABRICS_REQUEST, &w->request_path) < 0 || host_path(WATCH_FABRICS_RESULT, &w->result_path) < 0)
                return -ENOMEM;
        /* Tests of a unit that never answers, in a fake root only: a real
         * node always gets the deadlines of fabrics-watch.h. */
        if (!host_root_is_real() && getenv("SWAPGUARD_TEST_FABRICS_DEADLINE_USEC"))
                w->test_deadline_usec = strtoull(getenv("SWAPGUARD_TEST_FABRICS_DEADLINE_USEC"), NULL, 10);
        r = sd_event_add_time(e, &w->deadline, CLOCK_BOOTTIME, UINT64_MAX, 0, on_deadline, w);
        if (r < 0)
                return r;
        (void) sd_event_source_set_enabled(w->deadline, SD_EVENT_OFF);
        (void) sd_event_source_set_description(w->deadline, "fabrics-deadline");
        r = path_watch_new(e, w->result_path, "fabrics-result", on_result, w, &w->result);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(w);
        return 0;
}

FabricsWatch *fabrics_watch_free(FabricsWatch *w) {
        if (!w)
                return NULL;
        path_watch_free(w->result);
        sd_event_source_disable_unref(w->deadline);
        sd_event_unref(w->event);
        free(w->request_path);
        free(w->result_path);
        free(w);
        return NULL;
}

int fabrics_watch_request(FabricsWatch *w, const char *verb, uint64_t deadline_usec) {
        _cleanup_free_ char *text = NULL;
        uint64_t token;
        int r;

        if (w->busy)
                return -EBUSY;
        if (w->test_deadline_usec > 0)
                deadline_usec = w->test_deadline_usec;
        /* The wall clock in usec: unique across restarts of the daemon (an
         * answer to a previous instance's request is never taken for ours),
         * and larger than the last one even if the clock stepped back. */
        token = now_usec(CLOCK_REALTIME);
        if (token <= w->token)
                token = w->token + 1;
        if (asprintf(&text, "verb=%s\ntoken=%" PRIu64 "\n", verb, token) < 0)
                return -ENOMEM;
        r = write_file_atomic(w->request_path, text, 0644);
        if (r < 0)
                return r;
        w->token = token;
        w->busy = streq(verb, "capture") ? "capture" : "connect";
        w->asked_usec = now_usec(CLOCK_BOOTTIME);
        r = sd_event_source_set_time(w->deadline, w->asked_usec + deadline_usec);
        if (r >= 0)
                r = sd_event_source_set_enabled(w->deadline, SD_EVENT_ONESHOT);
        if (r < 0)
                log_warning_errno(r, "Cannot arm the deadline of the fabrics %s request, ignoring: %m", verb);
        log_debug("Asked " FABRICS_UNIT " to %s (token %" PRIu64 ").", verb, token);
        return 0;
}

const char *fabrics_watch_busy(const FabricsWatch *w) {
        return w ? w->busy : NULL;
}

uint64_t fabrics_watch_token(const FabricsWatch *w) {
        return w ? w->token : 0;
}
