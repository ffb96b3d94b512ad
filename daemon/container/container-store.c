/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "container/container-privilege.h"
#include "container/container-started.h"
#include "container/container-store.h"
#include "container/container-time.h"
#include "watch/exec-watch.h"
#include "host/host-root.h"
#include "publish/log.h"
#include "watch/path-watch.h"
#include "util/fileio.h"
#include "util/json-util.h"
#include "util/macro.h"
#include "util/strv.h"


static int annotation(json_object *annotations, const char *key, bool required, char **ret) {
        json_object *v = NULL;

        if (!json_object_object_get_ex(annotations, key, &v) || !json_object_is_type(v, json_type_string)) {
                if (required)
                        return -ENODATA;
                *ret = NULL;
                return 0;
        }
        *ret = strdup(json_object_get_string(v));
        return *ret ? 0 : -ENOMEM;
}

/* Length of the trailing whitespace: allowed after the document. */
static size_t strspn_tail(const char *s, size_t len) {
        size_t n = 0;

        while (n < len && strchr(" \t\r\n", s[len - 1 - n]) && s[len - 1 - n] != '\0')
                n++;
        return n;
}

/* process.env: the strings only; anything else in the array is not ours to judge. */
static int process_env(json_object *root, char ***ret) {
        json_object *process = NULL, *env = NULL;
        char **l = NULL;

        *ret = NULL;
        if (!json_object_object_get_ex(root, "process", &process) || !json_object_is_type(process, json_type_object) ||
            !json_object_object_get_ex(process, "env", &env) || !json_object_is_type(env, json_type_array))
                return 0;
        for (size_t i = 0; i < json_object_array_length(env); i++) {
                json_object *v = json_object_array_get_idx(env, i);

                if (!json_object_is_type(v, json_type_string))
                        continue;
                if (strv_extend(&l, json_object_get_string(v)) < 0) {
                        strv_free(l);
                        return -ENOMEM;
                }
        }
        *ret = l;
        return 0;
}

/* CRI-O's creation time; an unparsable one is unknown (0), not an error. */
static int created_annotation(json_object *annotations, uint64_t *ret) {
        _cleanup_free_ char *created = NULL;
        int r;

        *ret = 0;
        r = annotation(annotations, "io.kubernetes.cri-o.Created", false, &created);
        if (r < 0)
                return r;
        if (created && rfc3339_parse_usec(created, ret) < 0)
                *ret = 0;
        return 0;
}

int container_config_parse(const char *id, const char *json, size_t len, ContainerIdentity **ret) {
        _cleanup_json_ json_object *root = NULL;
        _cleanup_(container_identity_freep) ContainerIdentity *c = NULL;
        json_tokener *tok;
        json_object *annotations = NULL;
        int r;

        if (len > CONTAINER_CONFIG_MAX || len > INT32_MAX)
                return -EFBIG;
        tok = json_tokener_new();
        if (!tok)
                return -ENOMEM;
        root = json_tokener_parse_ex(tok, json, (int) len);
        /* A truncated document (a half-written file) or trailing garbage is not
         * a config. json-c 0.14 (RHEL 9) has no json_tokener_get_parse_end():
         * char_offset is its spelling there. */
        if (!root || json_tokener_get_error(tok) != json_tokener_success ||
            tok->char_offset < 0 || (size_t) tok->char_offset < len - strspn_tail(json, len)) {
                json_tokener_free(tok);
                return -EBADMSG;
        }
        json_tokener_free(tok);
        if (!json_object_is_type(root, json_type_object))
                return -EBADMSG;
        if (!json_object_object_get_ex(root, "annotations", &annotations) ||
            !json_object_is_type(annotations, json_type_object))
                return -ENODATA;

        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->id = strdup(id ?: "");
        if (!c->id)
                return -ENOMEM;
        r = annotation(annotations, "io.kubernetes.pod.namespace", true, &c->pod_namespace);
        if (r >= 0)
                r = annotation(annotations, "io.kubernetes.pod.name", true, &c->pod_name);
        if (r >= 0)
                r = annotation(annotations, "io.kubernetes.container.name", true, &c->container_name);
        if (r >= 0)
                r = annotation(annotations, "io.kubernetes.pod.uid", false, &c->pod_uid);
        if (r >= 0)
                r = created_annotation(annotations, &c->created_usec);
        if (r >= 0)
                r = process_env(root, &c->env);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(c);
        return 0;
}

int container_config_read(const char *path, const char *id, ContainerIdentity **ret) {
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r;

        r = read_regular_file(path, CONTAINER_CONFIG_MAX, &text, &len);
        if (r < 0)
                return r;
        return container_config_parse(id, text, len, ret);
}

int container_pidfile_read(const char *path, pid_t *ret) {
        _cleanup_free_ char *text = NULL;
        char *end = NULL;
        size_t len;
        long v;
        int r;

        r = read_regular_file(path, 64, &text, &len);
        if (r < 0)
                return r == -EFBIG ? -EBADMSG : r;
        errno = 0;
        v = strtol(text, &end, 10);
        if (errno || end == text || v <= 1 || v > INT32_MAX || (*end && *end != '\n'))
                return -EBADMSG;
        *ret = (pid_t) v;
        return 0;
}

/* One container directory we look at. */
typedef enum EntryState {
        ENTRY_PENDING,   /* waiting for a complete config.json */
        ENTRY_IGNORED,   /* not ours, or unreadable: we stop looking */
        ENTRY_WANTED,    /* ours: following its pidfile */
} EntryState;

typedef struct Entry {
        ContainerStore *store;
        char id[65];
        EntryState state;
        ContainerIdentity *identity;
        pid_t pid;
        bool privileged;   /* its init may give us kernel code (container-privilege.h) */
        bool awaiting_exec;  /* created: its process still runs the runtime's init */
        bool reported;       /* its pid was reported as started */
        sd_event_source *start_check; /* looks again for the start while created */
        uint64_t start_check_usec;    /* the next interval, doubling */
        uint64_t created_since_usec;  /* CLOCK_MONOTONIC when first seen created, 0 if not */
        bool created_long_logged;     /* "created for long" said once */
        bool start_polled_logged;     /* "looked for every 2 s" said once */
        PathWatch *watch;  /* config.json while pending, pidfile while wanted */
        struct Entry *next;
} Entry;

struct ContainerStore {
        sd_event *event;
        char *dir;                 /* <store>/overlay-containers */
        PathWatch *dir_watch;      /* overlay-containers/ existing or not */
        sd_event_source *children; /* inotify on overlay-containers/ itself */
        ExecWatch *execs;          /* only while a wanted container is created, not started */
        bool execs_unavailable;    /* the process connector refused us once: stop asking */
        Entry *entries;
        ContainerStoreWant want;
        ContainerStoreHandler handler;
        void *userdata;
};

static Entry *entry_free(Entry *e) {
        if (!e)
                return NULL;
        exec_watch_forget(e->store->execs, e->id);
        path_watch_free(e->watch);
        sd_event_source_disable_unref(e->start_check);
        container_identity_free(e->identity);
        free(e);
        return NULL;
}

static int entry_path(const Entry *e, const char *file, char **ret) {
        return asprintf(ret, "%s/%s/userdata/%s", e->store->dir, e->id, file) < 0 ? -ENOMEM : 0;
}

static void entry_refresh(Entry *e);

static void on_entry_file(PathWatch *w, bool exists, void *userdata) {
        if (exists)
                entry_refresh(userdata);
}

static int entry_watch(Entry *e, const char *file) {
        _cleanup_free_ char *p = NULL, *desc = NULL;
        int r;

        e->watch = path_watch_free(e->watch);
        r = entry_path(e, file, &p);
        if (r < 0)
                return r;
        if (asprintf(&desc, "container-%.12s-%s", e->id, file) < 0)
                return -ENOMEM;
        return path_watch_new(e->store->event, p, desc, on_entry_file, e, &e->watch);
}

/* Without CRI-O's Created annotation, the directory made at CreateContainer
 * stands for it. */
static void entry_created_fallback(Entry *e) {
        _cleanup_free_ char *p = NULL;
        struct stat st;

        if (e->identity->created_usec != 0 || asprintf(&p, "%s/%s", e->store->dir, e->id) < 0)
                return;
        if (stat(p, &st) >= 0)
                e->identity->created_usec =
                        (uint64_t) st.st_mtim.tv_sec * 1000000ULL + (uint64_t) st.st_mtim.tv_nsec / 1000ULL;
}

static void entry_read_identity(Entry *e) {
        _cleanup_free_ char *p = NULL;
        int r;

        r = entry_path(e, "config.json", &p);
        if (r >= 0)
                r = container_config_read(p, e->id, &e->identity);
        if (r == -ENOENT || r == -EBADMSG)
                return; /* not there yet or still being written: wait for the next write */
        if (r < 0) {
                log_warning_errno(r, "Container %.12s: cannot use %s, ignoring the container: %m", e->id, p);
                e->state = ENTRY_IGNORED;
                e->watch = path_watch_free(e->watch);
                return;
        }
        if (!e->store->want(e->identity, e->store->userdata)) {
                e->state = ENTRY_IGNORED;
                e->identity = container_identity_free(e->identity);
                e->watch = path_watch_free(e->watch);
                return;
        }
        entry_created_fallback(e);
        log_info("Container %.12s is %s/%s in namespace %s: following it.", e->id, e->identity->pod_name,
                 e->identity->container_name, e->identity->pod_namespace);
        e->state = ENTRY_WANTED;
        r = entry_watch(e, "pidfile");
        if (r < 0)
                log_warning_errno(r, "Container %.12s: cannot watch its pidfile, relying on the store: %m", e->id);
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

static void store_update_exec_watch(ContainerStore *s);

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

        r = entry_path(e, "pidfile", &p);
        if (r >= 0)
                r = container_pidfile_read(p, &pid);
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

static void entry_refresh(Entry *e) {
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
static void store_update_exec_watch(ContainerStore *s) {
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

static Entry **entry_find(ContainerStore *s, const char *id) {
        for (Entry **i = &s->entries; *i; i = &(*i)->next)
                if (streq((*i)->id, id))
                        return i;
        return NULL;
}

static void container_added(ContainerStore *s, const char *id) {
        Entry *e;
        int r;

        if (!container_id_valid(id) || entry_find(s, id))
                return;
        e = calloc(1, sizeof(*e));
        if (!e) {
                log_error("Out of memory while following container %.12s.", id);
                return;
        }
        e->store = s;
        memcpy(e->id, id, 65);
        e->next = s->entries;
        s->entries = e;
        r = entry_watch(e, "config.json");
        if (r < 0)
                log_warning_errno(r, "Container %.12s: cannot watch its config.json, ignoring: %m", id);
        entry_refresh(e);
}

static void container_removed(ContainerStore *s, const char *id) {
        Entry **i = entry_find(s, id), *e;

        if (!i)
                return;
        e = *i;
        *i = e->next;
        if (e->state == ENTRY_WANTED && e->reported)
                s->handler(s, CONTAINER_STORE_REMOVED, e->identity, e->pid, s->userdata);
        entry_free(e);
        store_update_exec_watch(s);
}

static void remove_all(ContainerStore *s) {
        while (s->entries) {
                char id[65];

                memcpy(id, s->entries->id, 65);
                container_removed(s, id);
        }
}

static int scan(ContainerStore *s) {
        _cleanup_(closedirp) DIR *d = opendir(s->dir);
        struct dirent *de;

        if (!d)
                return errno == ENOENT ? 0 : -errno;
        /* Removed while we did not look. */
        for (Entry *e = s->entries, *next; e; e = next) {
                _cleanup_free_ char *p = NULL;

                next = e->next;
                if (asprintf(&p, "%s/%s", s->dir, e->id) >= 0 && path_exists(p) == 0)
                        container_removed(s, e->id);
        }
        while ((de = readdir(d)))
                container_added(s, de->d_name);
        return 0;
}

static int on_children(sd_event_source *src, const struct inotify_event *ev, void *userdata) {
        ContainerStore *s = userdata;

        if (ev->mask & IN_Q_OVERFLOW) {
                log_warning("Lost inotify events on %s: rescanning the store.", s->dir);
                (void) scan(s);
                return 0;
        }
        if (ev->len == 0 || !(ev->mask & IN_ISDIR))
                return 0;
        if (ev->mask & (IN_CREATE | IN_MOVED_TO))
                container_added(s, ev->name);
        else if (ev->mask & (IN_DELETE | IN_MOVED_FROM))
                container_removed(s, ev->name);
        return 0;
}

static void on_dir(PathWatch *w, bool exists, void *userdata) {
        ContainerStore *s = userdata;
        int r;

        if (exists && !s->children) {
                r = sd_event_add_inotify(s->event, &s->children, s->dir,
                                         IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_ONLYDIR,
                                         on_children, s);
                if (r < 0) {
                        log_error_errno(r, "Cannot watch %s, containers will not be seen: %m", s->dir);
                        return;
                }
                (void) sd_event_source_set_description(s->children, "container-store");
                (void) scan(s);
        } else if (!exists && s->children) {
                s->children = sd_event_source_disable_unref(s->children);
                remove_all(s);
        }
}

ContainerStore *container_store_free(ContainerStore *s) {
        if (!s)
                return NULL;
        while (s->entries) {
                Entry *e = s->entries;

                s->entries = e->next;
                entry_free(e);
        }
        sd_event_source_disable_unref(s->children);
        exec_watch_free(s->execs);
        path_watch_free(s->dir_watch);
        sd_event_unref(s->event);
        free(s->dir);
        free(s);
        return NULL;
}


int container_store_new(sd_event *e, const char *store_dir, ContainerStoreWant want, ContainerStoreHandler handler,
                        void *userdata, ContainerStore **ret) {
        _cleanup_(container_store_freep) ContainerStore *s = calloc(1, sizeof(*s));
        int r;

        if (!s)
                return -ENOMEM;
        s->event = sd_event_ref(e);
        s->want = want;
        s->handler = handler;
        s->userdata = userdata;
        if (asprintf(&s->dir, "%s/overlay-containers", store_dir) < 0) {
                s->dir = NULL;
                return -ENOMEM;
        }
        r = path_watch_new(e, s->dir, "container-store-dir", on_dir, s, &s->dir_watch);
        if (r < 0)
                return r;
        if (path_watch_exists(s->dir_watch))
                on_dir(s->dir_watch, true, s);
        *ret = TAKE_PTR(s);
        return 0;
}

int container_store_rescan(ContainerStore *s) {
        return s->children ? scan(s) : 0;
}

int container_store_find_running(const char *store_dir, const char *container_name, pid_t *ret_pid) {
        _cleanup_free_ char *dir = NULL;
        _cleanup_(closedirp) DIR *d = NULL;
        uint64_t best_created = 0;
        pid_t best = 0;
        struct dirent *de;

        if (asprintf(&dir, "%s/overlay-containers", store_dir) < 0)
                return -ENOMEM;
        d = opendir(dir);
        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                _cleanup_free_ char *config = NULL, *pidfile = NULL;
                _cleanup_(container_identity_freep) ContainerIdentity *c = NULL;
                pid_t pid;

                if (!container_id_valid(de->d_name))
                        continue;
                if (asprintf(&config, "%s/%s/userdata/config.json", dir, de->d_name) < 0 ||
                    asprintf(&pidfile, "%s/%s/userdata/pidfile", dir, de->d_name) < 0)
                        return -ENOMEM;
                if (container_config_read(config, de->d_name, &c) < 0 || !streq(c->container_name, container_name))
                        continue;
                if (container_pidfile_read(pidfile, &pid) < 0 ||
                    container_process_state(pid, de->d_name, NULL) != CONTAINER_PROCESS_STARTED)
                        continue;
                if (!best || c->created_usec > best_created) {
                        best = pid;
                        best_created = c->created_usec;
                }
        }
        if (!best)
                return -ENOENT;
        *ret_pid = best;
        return 0;
}
