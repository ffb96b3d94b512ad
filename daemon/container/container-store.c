/* SPDX-License-Identifier: Apache-2.0 */
/* The container store's entries: who a container is (config.json), its
 * pid (pidfile), whether it started, and reporting it. What makes the
 * store look at an entry is container-store-watch.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "container/container-privilege.h"
#include "container/container-started.h"
#include "container/container-store-internal.h"
#include "host/crio.h"
#include "host/private-path.h"
#include "publish/log.h"
#include "util/macro.h"

void store_entry_unwatch(Entry *e) {
        /* EINVAL: the kernel dropped it already (the directory is gone). */
        if (e->wd >= 0)
                (void) inotify_rm_watch(e->store->inotify_fd, e->wd);
        e->wd = -1;
}

Entry *store_entry_free(Entry *e) {
        if (!e)
                return NULL;
        store_entry_unwatch(e);
        exec_watch_forget(e->store->execs, e->id);
        sd_event_source_disable_unref(e->start_check);
        container_identity_free(e->identity);
        free(e);
        return NULL;
}

static int entry_path(const Entry *e, const char *file, char **ret) {
        return crio_userdata_file(e->store->dir, e->id, file, ret);
}

/* Without CRI-O's Created annotation, the directory made at CreateContainer
 * stands for it. */
static void entry_created_fallback(Entry *e) {
        PrivatePathLook l;

        if (e->identity->created_usec != 0)
                return;
        if (private_path_look(e->store->dir, PRIVATE_PATH_ENTRY, e->id, &l) >= 0)
                e->identity->created_usec = l.mtime_usec;
}

static void entry_read_identity(Entry *e) {
        _cleanup_free_ char *p = NULL;
        const char *why = NULL;
        int r;

        r = entry_path(e, CRIO_CONFIG_FILE, &p);
        if (r >= 0)
                r = container_config_read_store(e->store->dir, e->id, &e->identity, &why);
        if (r == -ENOENT || r == -EBADMSG)
                return; /* not there yet or still being written: wait for the next write */
        if (r < 0) {
                log_warning_errno(r, "Container %.12s: cannot use %s, ignoring the container: %m%s%s", e->id, p,
                                  why ? ": " : "", why ?: "");
                e->state = ENTRY_IGNORED;
                return;
        }
        if (!e->store->want(e->identity, e->store->userdata)) {
                e->state = ENTRY_IGNORED;
                e->identity = container_identity_free(e->identity);
                return;
        }
        entry_created_fallback(e);
        log_info("Container %.12s is %s/%s in namespace %s: following it.", e->id, e->identity->pod_name,
                 e->identity->container_name, e->identity->pod_namespace);
        e->state = ENTRY_WANTED;
}

/* A wanted container already reported that was created after e: pods
 * overlap during an upgrade; the newest one is the driver container. */
static const Entry *entry_newer_reported(const Entry *e) {
        for (const Entry *i = e->store->entries; i; i = i->next)
                if (i != e && i->reported && container_newer(i->identity, e->identity))
                        return i;
        return NULL;
}

static void entry_report_started(Entry *e) {
        const Entry *newer = entry_newer_reported(e);

        e->awaiting_exec = false;
        if (newer) {
                log_info("Container %.12s was created before %.12s: not following it.", e->id, newer->id);
                return;
        }
        e->reported = true;
        /* The handler may free the store's entries: this is the last use of e. */
        e->store->handler(e->store, CONTAINER_STORE_PID, e->identity, e->pid, e->store->userdata);
}

/* Between CRI-O's create and start lie milliseconds, unless the start
 * fails (then the runtime kills the process) or kubelet waits. While a
 * wanted container is created, the exec watch (exec-watch.h) follows its
 * runtime's exec fifo and says when to look; then the only timer is the
 * "created for long" deadline. When it cannot (no fifo under the runtime
 * roots we know, or its removal brought no start), the start is looked for
 * again: 50 ms, doubling to 2 s, until it started or is gone, and the
 * journal says so once. An idle node has no created container, so no
 * timer. */
#define START_CHECK_FIRST_USEC (50ULL * 1000ULL)
#define START_CHECK_MAX_USEC (2ULL * 1000000ULL)
/* Kubelet starts right after create; a container still created after this
 * long is worth a line in the journal (once). */
#define CREATED_LONG_USEC (60ULL * 1000000ULL)

static void entry_check_started(Entry *e);

static int on_start_check(sd_event_source *src, uint64_t usec, void *userdata) {
        Entry *e = userdata;
        ContainerStore *s = e->store;

        entry_check_started(e); /* may free e (the handler), not the store */
        store_update_exec_watch(s);
        return 0;
}

static void entry_arm_start_check(Entry *e) {
        int r;

        if (exec_watch_cover(e->store->execs, e->id, e->pid, &e->start_polled_logged) > 0)
                e->start_check_usec = CREATED_LONG_USEC;
        else if (e->start_check_usec == 0 || e->start_check_usec == CREATED_LONG_USEC)
                e->start_check_usec = START_CHECK_FIRST_USEC;
        else if (e->start_check_usec < START_CHECK_MAX_USEC / 2)
                e->start_check_usec *= 2;
        else
                e->start_check_usec = START_CHECK_MAX_USEC;
        if (e->start_check) {
                (void) sd_event_source_set_time_relative(e->start_check, e->start_check_usec);
                (void) sd_event_source_set_enabled(e->start_check, SD_EVENT_ONESHOT);
                return;
        }
        r = sd_event_add_time_relative(e->store->event, &e->start_check, CLOCK_MONOTONIC, e->start_check_usec,
                                       10000ULL, on_start_check, e);
        if (r < 0) {
                /* Fail closed: not started until the pidfile or the store changes. */
                log_error_errno(r, "Container %.12s: cannot look for its start again; it counts as not started "
                                   "until its pidfile or the container store changes: %m", e->id);
                return;
        }
        (void) sd_event_source_set_description(e->start_check, "container-start-check");
}

static void entry_stop_start_check(Entry *e) {
        exec_watch_forget(e->store->execs, e->id);
        if (e->start_check)
                (void) sd_event_source_set_enabled(e->start_check, SD_EVENT_OFF);
        e->start_check_usec = 0;
        e->created_since_usec = 0;
        e->created_long_logged = false;
        e->start_polled_logged = false;
}

/* Not started yet: known to be created (known true), or nothing could tell
 * (known false: fail closed, and say that it is a guess). */
static void entry_note_created(Entry *e, const ContainerStartEvidence *ev, bool known) {
        char why[256];
        uint64_t now = 0;
        bool first = e->created_since_usec == 0;

        (void) sd_event_now(e->store->event, CLOCK_MONOTONIC, &now);
        container_start_evidence_describe(ev, why, sizeof(why));
        if (first)
                e->created_since_usec = now ? now : 1;
        else if (e->created_long_logged || now < e->created_since_usec + CREATED_LONG_USEC)
                return;
        else
                e->created_long_logged = true;
        if (first && known)
                log_info("Container %.12s is created (pid %d), not started (%s): waiting for it to exec its "
                         "entrypoint.", e->id, (int) e->pid, why);
        else if (first)
                log_info("Cannot tell whether container %.12s (pid %d) has started (%s): it counts as not started "
                         "until its process is seen running its entrypoint.", e->id, (int) e->pid, why);
        else if (known)
                log_notice("Container %.12s has been created for %llu s and not started (pid %d, %s): nothing is "
                           "done for it until it runs its entrypoint. If kubelet cannot start it, see "
                           "`crictl inspect %.12s`.", e->id, (unsigned long long) (CREATED_LONG_USEC / 1000000ULL),
                           (int) e->pid, why, e->id);
        else
                log_notice("Cannot tell whether container %.12s has started, %llu s after the first look "
                           "(pid %d, %s): nothing is done for it until its process can be read and runs its "
                           "entrypoint. `crictl inspect %.12s` says whether it runs.", e->id,
                           (unsigned long long) (CREATED_LONG_USEC / 1000000ULL), (int) e->pid, why, e->id);
}

static void entry_check_started(Entry *e) {
        ContainerStartEvidence ev;
        ContainerProcess p = container_process_state(e->pid, e->id, &ev);

        switch (p) {
        case CONTAINER_PROCESS_GONE:
                log_debug("Container %.12s: pid %d is gone before it started.", e->id, (int) e->pid);
                e->awaiting_exec = false;
                entry_stop_start_check(e);
                return;
        case CONTAINER_PROCESS_CREATED:
        case CONTAINER_PROCESS_UNKNOWN:
                entry_note_created(e, &ev, p == CONTAINER_PROCESS_CREATED);
                e->awaiting_exec = true;
                entry_arm_start_check(e);
                return;
        case CONTAINER_PROCESS_STARTED:
                break;
        }
        entry_stop_start_check(e);
        entry_report_started(e);
}

static void entry_read_pid(Entry *e) {
        _cleanup_free_ char *p = NULL;
        pid_t pid;
        int r;

        r = entry_path(e, CRIO_PIDFILE, &p);
        if (r >= 0)
                r = container_pidfile_read_store(e->store->dir, e->id, &pid);
        if (r < 0) {
                if (r != -ENOENT && r != -EBADMSG)
                        log_debug_errno(r, "Container %.12s: cannot read %s, ignoring: %m", e->id, p);
                return;
        }
        if (pid == e->pid)
                return;
        e->pid = pid;
        e->reported = false;
        entry_stop_start_check(e);
        /* trust: only a privileged container in the host's user namespace;
         * the refusal is logged there, naming it. */
        e->privileged = container_privilege_allows(e->identity, pid);
        if (!e->privileged)
                return;
        /* An exited container, or kubelet's earlier attempt in the pod, is history. */
        for (Entry *o = e->store->entries; o; o = o->next)
                if (o != e && o->state == ENTRY_WANTED && o->privileged &&
                    container_pair_conflicts(o->identity, container_pid_running(o->pid), e->identity, true))
                        log_warning("Two privileged driver containers match: %.12s (%s) and %.12s (%s).", o->id,
                                    o->identity->pod_name, e->id, e->identity->pod_name);
        /* lifecycle: reported once it runs its entrypoint. Subscribe before
         * looking, so an exec in between is not missed. */
        e->awaiting_exec = true;
        store_update_exec_watch(e->store);
        entry_check_started(e);
        store_update_exec_watch(e->store);
}

void store_entry_refresh(Entry *e) {
        /* The handler may free the store's entries: this is the last use of e. */
        if (e->state == ENTRY_PENDING)
                entry_read_identity(e);
        if (e->state == ENTRY_WANTED)
                entry_read_pid(e);
}

static void on_exec(ExecWatch *w, pid_t pid, void *userdata) {
        ContainerStore *s = userdata;

        for (Entry *e = s->entries; e; e = e->next)
                if (e->awaiting_exec && e->pid == pid) {
                        entry_check_started(e);
                        break; /* e and the list may be gone after the handler */
                }
        store_update_exec_watch(s);
}

/* The process connector sees every exec of the node: listen only while a
 * wanted container waits for its start. */
void store_update_exec_watch(ContainerStore *s) {
        bool needed = false;
        int r;

        for (Entry *e = s->entries; e; e = e->next)
                needed = needed || e->awaiting_exec;
        if (!needed) {
                s->execs = exec_watch_free(s->execs);
                return;
        }
        if (s->execs || s->execs_unavailable)
                return;
        r = exec_watch_new(s->event, on_exec, s, &s->execs);
        if (r < 0) {
                /* Out of memory: the timer does the job (each container's
                 * "looked for every 2 s" says so). */
                log_full_errno(LOG_INFO, r, "Cannot watch for the start of created containers (%m): it is "
                                            "looked for every 2 s instead.");
                s->execs_unavailable = true;
        }
}

Entry **store_entry_find(ContainerStore *s, const char *id) {
        for (Entry **i = &s->entries; *i; i = &(*i)->next)
                if (streq((*i)->id, id))
                        return i;
        return NULL;
}

void store_entry_removed(ContainerStore *s, const char *id) {
        Entry **i = store_entry_find(s, id), *e;

        if (!i)
                return;
        e = *i;
        *i = e->next;
        if (e->state == ENTRY_WANTED && e->reported)
                s->handler(s, CONTAINER_STORE_REMOVED, e->identity, e->pid, s->userdata);
        store_entry_free(e);
        store_update_exec_watch(s);
}

void store_remove_all(ContainerStore *s) {
        while (s->entries) {
                char id[65];

                memcpy(id, s->entries->id, 65);
                store_entry_removed(s, id);
        }
}

