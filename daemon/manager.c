/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <systemd/sd-daemon.h>
#include <time.h>

#include "container-store.h"
#include "host/host-root.h"
#include "log.h"
#include "manager.h"
#include "mount-watch.h"
#include "path-watch.h"
#include "reconcile.h"
#include "reload-guard.h"
#include "report.h"
#include "scope-watch.h"
#include "state-file.h"
#include "udev-watch.h"
#include "util/strv.h"

/* More than this many chained transitions for one event is a bug in the table. */
#define MAX_CHAIN 16

/* The NVMe host stack modules, for uevent filtering and the reload guard. */
static char *const stack_modules[] = {
        (char *) "nvme_core", (char *) "nvme", (char *) "nvme_fabrics", (char *) "nvme_tcp",
        (char *) "nvme_rdma", (char *) "nvme_fc", (char *) "nvme_auth", (char *) "nvme_keyring", NULL,
};

struct Manager {
        sd_event *event;
        const GuardOps *ops;
        char *config_path;
        bool config_optional;
        Config *config;

        SwapState state;
        StateFile record;            /* what the state file says; state mirrors .state */
        bool started;                /* first reconcile done: events now drive the machine */
        bool stopping;
        char *failure;               /* why we are FAILED, for the report */

        /* The driver container we follow. */
        ContainerIdentity *container;
        pid_t container_pid;
        sd_event_source *container_exit;   /* pidfd POLLIN: its init process exited */

        bool ready_present;
        char *last_blockers;               /* to report a block once, not on every re-check */
        SwapEvent restore_cause;           /* what sent us to restoring: the "why" of the report */
        char *restore_container;           /* the container it was for (often gone by then) */

        ContainerStore *store;
        PathWatch *ready;
        UdevWatch *udev;
        ScopeWatch *scopes;
        MountWatch *mounts;
        sd_event_source *sig_term, *sig_int, *sig_hup;
        sd_event_source *deadline;
        sd_event_source *recheck;          /* deferred, coalesced usage re-check */
};

static void manager_dispatch(Manager *m, SwapEvent ev);

static uint64_t now_realtime_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

static const char *container_short(const Manager *m) {
        return m->container ? m->container->id : m->record.container_id;
}

/* ---- the record and the state file ------------------------------------ */

static void record_message(Manager *m, const char *fmt, ...) _printf_(2, 3);
static void record_message(Manager *m, const char *fmt, ...) {
        char *s = NULL;
        va_list ap;

        va_start(ap, fmt);
        if (vasprintf(&s, fmt, ap) < 0)
                s = NULL;
        va_end(ap);
        if (s) {
                free(m->record.message);
                m->record.message = s;
        }
}

static void persist(Manager *m) {
        int r;

        if (m->record.state != m->state)
                m->record.since_usec = now_realtime_usec();
        m->record.state = m->state;
        free(m->record.container_id);
        free(m->record.pod_name);
        m->record.container_id = m->container ? strdup(m->container->id) : NULL;
        m->record.pod_name = m->container ? strdup(m->container->pod_name) : NULL;
        m->record.container_pid = m->container_pid;
        r = state_file_write(&m->record);
        if (r < 0)
                log_warning_errno(r, "Cannot write the state file " STATE_FILE ", ignoring: %m");
}

static void update_status(Manager *m) {
        switch (m->state) {
        case SWAP_STATE_IDLE:
                report_status("idle: no driver container");
                break;
        case SWAP_STATE_CONTAINER_SEEN:
                report_status("container-seen: %.12s, in-tree stack loaded, waiting", container_short(m) ?: "?");
                break;
        case SWAP_STATE_BLOCKED:
                report_status("blocked: %s", m->last_blockers ?: "namespaces in use");
                break;
        case SWAP_STATE_UNLOADED_WAITING_DRIVER:
                report_status("unloaded, waiting for the driver container's ready file");
                break;
        case SWAP_STATE_LOADING:
                report_status("loading the NVMe stack from the driver container");
                break;
        case SWAP_STATE_SWAPPED:
                report_status("swapped%s", m->record.missing_namespaces ? ", namespaces still missing" : "");
                break;
        case SWAP_STATE_RESTORING:
                report_status("restoring the in-tree NVMe stack");
                break;
        case SWAP_STATE_RESTORED:
                report_status("restored: in-tree NVMe stack back (%s)", m->record.message ?: "");
                break;
        case SWAP_STATE_FAILED:
                report_status("failed: %s", m->failure ?: "see the journal");
                break;
        default:
                break;
        }
}

/* ---- reading what is true now ----------------------------------------- */

static char *const *modules_wanted(const Manager *m);

/* The replacement counts as loaded only once it drives the PCIe namespaces:
 * NVIDIA's nvme_core alone (a daemon killed between loading it and nvme,
 * found by tests/faults, row kill:loading) is not a swap to report and keep,
 * but a stack to unload and load again. */
static bool replacement_complete(const Manager *m, const GuardStack *stack) {
        const GuardModule *nvme = guard_stack_find(stack, "nvme");

        if (!guard_stack_replacement_loaded(stack))
                return false;
        return !strv_contains(modules_wanted(m), "nvme") || (nvme && nvme->origin != GUARD_ORIGIN_ABSENT);
}

static int read_context(Manager *m, SwapContext *ctx, GuardStack **ret_stack) {
        GuardStack *stack = NULL;
        int r;

        r = m->ops->read_stack(m->ops->userdata, &stack);
        if (r < 0)
                return log_error_errno(r, "Cannot read the NVMe module stack: %m");
        *ctx = (SwapContext) {
                .unload_at = m->config->unload_at,
                .load_from_container = m->config->load_from_container,
                .ready_present = m->ready_present,
                .stack_loaded = guard_stack_any_loaded(stack),
                .replacement_loaded = replacement_complete(m, stack),
        };
        if (ret_stack)
                *ret_stack = stack;
        else
                guard_stack_free(stack);
        return 0;
}

/* ---- reports ---------------------------------------------------------- */

static void report_namespaces(Manager *m, const char *message_id, const char *what) {
        GuardNamespaces *now = NULL;
        char **missing = NULL;
        int r;

        if (!m->record.namespaces_before || m->record.namespaces_before->n == 0)
                return;
        r = m->ops->scan_namespaces(m->ops->userdata, &now);
        if (r >= 0)
                r = guard_namespaces_missing(m->record.namespaces_before, now, &missing);
        guard_namespaces_free(now);
        if (r < 0) {
                log_warning_errno(r, "Cannot compare the namespaces with those seen before the unload: %m");
                return;
        }
        strv_free(m->record.missing_namespaces);
        m->record.missing_namespaces = missing;
        if (!missing) {
                report_event(LOG_INFO, message_id,
                             &(ReportFields) { .state = swap_state_to_string(m->state), .container_id = container_short(m) },
                             "%s: all %zu NVMe namespaces seen before the unload are back.", what,
                             m->record.namespaces_before->n);
                return;
        }
        for (char **i = missing; *i; i++)
                report_event(LOG_WARNING, message_id,
                             &(ReportFields) { .state = swap_state_to_string(m->state), .device = *i,
                                               .container_id = container_short(m) },
                             "%s: NVMe namespace %s seen before the unload is not back (yet).", what, *i);
}

static void report_swapped(Manager *m, const char *by) {
        GuardStack *stack = NULL;
        int r;

        r = m->ops->read_stack(m->ops->userdata, &stack);
        if (r < 0) {
                log_warning_errno(r, "Cannot read the module stack for the swap report: %m");
                return;
        }
        for (size_t i = 0; i < stack->n_modules; i++) {
                const GuardModule *x = &stack->modules[i];
                char *extra[] = { (char *) (x->gds_hooks ? "SWAPGUARD_GDS_HOOKS=yes" : "SWAPGUARD_GDS_HOOKS=no"),
                                  NULL };

                if (x->origin == GUARD_ORIGIN_ABSENT)
                        continue;
                report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_SWAPPED,
                             &(ReportFields) { .state = "swapped", .module = x->name,
                                               .origin = guard_origin_to_string(x->origin),
                                               .container_id = container_short(m), .pid = m->container_pid,
                                               .extra = extra },
                             "Swapped (%s): module %s is the %s build, GDS hooks %s.", by, x->name,
                             guard_origin_to_string(x->origin), x->gds_hooks ? "present" : "absent");
        }
        guard_stack_free(stack);
        record_message(m, "swapped (%s)", by);
        report_namespaces(m, SWAPGUARD_MESSAGE_NAMESPACES_BACK, "After the swap");
}

static void report_blockers(Manager *m, const GuardBlockers *b) {
        char *joined = guard_blockers_join(b);

        if (!joined)
                return;
        if (m->last_blockers && streq(joined, m->last_blockers)) {
                free(joined);
                return; /* same blockers as last time: said already */
        }
        free(m->last_blockers);
        m->last_blockers = joined;
        strv_free(m->record.blockers);
        m->record.blockers = NULL;
        for (size_t i = 0; i < b->n; i++) {
                const GuardBlocker *x = &b->items[i];
                char *extra[] = { NULL, NULL };
                char *kind = NULL;

                if (asprintf(&kind, "SWAPGUARD_USAGE=%s", x->kind ?: "unknown") >= 0)
                        extra[0] = kind;
                (void) strv_extend(&m->record.blockers, x->description ?: "");
                report_event(LOG_WARNING, SWAPGUARD_MESSAGE_BLOCKED,
                             &(ReportFields) { .state = "blocked", .device = x->device,
                                               .mount_point = x->kind && streq(x->kind, "mounted") ? x->where : NULL,
                                               .pid = x->pid, .container_id = container_short(m), .extra = extra },
                             "Blocked: not unloading the in-tree NVMe stack: %s.", x->description ?: "in use");
                free(kind);
        }
        record_message(m, "blocked: %s", joined);
}

static void fail(Manager *m, const char *module, const char *fmt, ...) _printf_(3, 4);
static void fail(Manager *m, const char *module, const char *fmt, ...) {
        char *s = NULL;
        va_list ap;

        va_start(ap, fmt);
        if (vasprintf(&s, fmt, ap) < 0)
                s = NULL;
        va_end(ap);
        free(m->failure);
        m->failure = s;
        report_event(LOG_ERR, SWAPGUARD_MESSAGE_FAILED,
                     &(ReportFields) { .state = swap_state_to_string(m->state), .module = module,
                                       .container_id = container_short(m), .pid = m->container_pid },
                     "%s", s ?: "failure");
        record_message(m, "%s", s ?: "failure");
}

/* ---- actions ---------------------------------------------------------- */

/* What we unload is what we must be able to put back: note it first, and
 * persist it, so a crash in the middle still knows. A record kept from an
 * unload that was cut short (SIGKILL after nvme_tcp went, found by
 * tests/faults, rows kill:unloading and kill:restoring) already names what
 * is gone now: add to it, never replace it, or the restore and the load
 * would leave those modules out. The same for the namespaces, whose
 * devices went with the modules. */
static void record_before_unload(Manager *m) {
        GuardStack *stack = NULL;
        GuardNamespaces *ns = NULL;
        char **names = NULL;

        if (m->ops->read_stack(m->ops->userdata, &stack) >= 0 && guard_stack_loaded_names(stack, &names) >= 0 &&
            names) {
                for (char **i = names; *i; i++)
                        if (!strv_contains(m->record.modules_before, *i))
                                (void) strv_extend(&m->record.modules_before, *i);
                strv_free(names);
        }
        guard_stack_free(stack);
        if ((!m->record.namespaces_before || m->record.namespaces_before->n == 0) &&
            m->ops->scan_namespaces(m->ops->userdata, &ns) >= 0) {
                guard_namespaces_free(m->record.namespaces_before);
                m->record.namespaces_before = ns;
        }
        persist(m);
}

static SwapEvent action_unload(Manager *m) {
        GuardUnloadResult *u = NULL;
        SwapEvent ev;
        int r;

        record_before_unload(m);
        r = m->ops->unload(m->ops->userdata, &u);
        if (r < 0) {
                log_error_errno(r, "Cannot unload the in-tree NVMe stack: %m");
                return SWAP_EVENT_UNLOAD_FAILED;
        }
        switch (u->outcome) {
        case GUARD_UNLOAD_REMOVED:
        case GUARD_UNLOAD_NOT_LOADED: {
                _cleanup_free_ char *list = words_join(u->removed, " ");

                free(m->last_blockers);
                m->last_blockers = NULL;
                report_event(LOG_NOTICE, SWAPGUARD_MESSAGE_UNLOADED,
                             &(ReportFields) { .state = "unloaded-waiting-driver", .module = list,
                                               .container_id = container_short(m), .pid = m->container_pid },
                             "Unloaded the in-tree NVMe stack (%s) for driver container %.12s.",
                             list && *list ? list : "nothing was loaded", container_short(m) ?: "?");
                record_message(m, "unloaded: %s", list ?: "");
                ev = SWAP_EVENT_UNLOAD_DONE;
                break;
        }
        case GUARD_UNLOAD_REFUSED:
                report_blockers(m, &u->blockers);
                ev = SWAP_EVENT_UNLOAD_REFUSED;
                break;
        case GUARD_UNLOAD_FAILED_RESTORED:
                fail(m, u->failed_module, "Unloading %s failed (%s); the modules removed before it were put back.",
                     u->failed_module ?: "the stack", strerror(u->failed_errno ?: EIO));
                ev = SWAP_EVENT_UNLOAD_FAILED;
                break;
        default:
                fail(m, u->failed_module, "Unloading %s failed (%s) and putting the stack back failed too.",
                     u->failed_module ?: "the stack", strerror(u->failed_errno ?: EIO));
                ev = SWAP_EVENT_UNLOAD_FAILED_UNRESTORED;
                break;
        }
        guard_unload_result_free(u);
        return ev;
}

static SwapEvent action_recheck(Manager *m) {
        GuardBlockers *b = NULL;
        int r;

        r = m->ops->check_usage(m->ops->userdata, &b);
        if (r < 0) {
                log_warning_errno(r, "Cannot check NVMe namespace use, staying blocked: %m");
                return SWAP_EVENT_UNLOAD_REFUSED;
        }
        if (b->n > 0) {
                report_blockers(m, b);
                guard_blockers_free(b);
                return SWAP_EVENT_UNLOAD_REFUSED;
        }
        guard_blockers_free(b);
        log_info("The namespaces that blocked the unload are free now: unloading.");
        return action_unload(m);
}

/* The running kernel's release as the host shows it (a fake root has its
 * own), which names the container's module tree. */
static int kernel_release(char **ret) {
        _cleanup_free_ char *path = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        char buf[256];
        struct utsname u;

        if (host_path("/proc/sys/kernel/osrelease", &path) >= 0 && (f = fopen(path, "re")) &&
            fgets(buf, sizeof(buf), f)) {
                buf[strcspn(buf, "\n")] = '\0';
                if (buf[0] && !strchr(buf, '/')) {
                        *ret = strdup(buf);
                        return *ret ? 0 : -ENOMEM;
                }
        }
        if (uname(&u) < 0)
                return -errno;
        *ret = strdup(u.release);
        return *ret ? 0 : -ENOMEM;
}

static char *const *modules_wanted(const Manager *m) {
        return m->config->modules ?: m->record.modules_before;
}

static SwapEvent action_load(Manager *m) {
        _cleanup_free_ char *tree = NULL, *loaded = NULL, *release = NULL;
        GuardLoadResult *l = NULL;
        int r;

        if (!m->container || m->container_pid <= 0) {
                fail(m, NULL, "The driver container is gone: nothing to load its build from.");
                return SWAP_EVENT_LOAD_FAILED;
        }
        /* A host path: the library applies host_path() to it itself. */
        if (kernel_release(&release) < 0 ||
            asprintf(&tree, "/proc/%d/root/lib/modules/%s", (int) m->container_pid, release) < 0) {
                tree = NULL;
                fail(m, NULL, "Out of memory.");
                return SWAP_EVENT_LOAD_FAILED;
        }
        r = m->ops->load_from(m->ops->userdata, tree, modules_wanted(m), &l);
        if (r < 0) {
                fail(m, NULL, "Cannot load the NVMe stack from %s: %s.", tree, strerror(-r));
                return SWAP_EVENT_LOAD_FAILED;
        }
        if (l->failed_module) {
                fail(m, l->failed_module, "Loading %s from %s failed: %s (%s).", l->failed_module, tree,
                     l->failed_reason ?: "", strerror(l->failed_errno ?: EIO));
                guard_load_result_free(l);
                return SWAP_EVENT_LOAD_FAILED;
        }
        loaded = words_join(l->loaded, " ");
        log_info("Loaded %s from %s.", loaded ?: "the stack", tree);
        guard_load_result_free(l);
        return SWAP_EVENT_LOAD_DONE;
}

/* Out-of-tree modules left by a load that never finished (a daemon killed
 * mid-load whose container then vanished, found by tests/faults, row
 * vanish:during-load) would have the in-tree nvme loaded against NVIDIA's
 * nvme_core: take them out first, through the guard (never forced, refused
 * if anything is in use). 0 when there was nothing or it is gone. */
static int remove_partial_replacement(Manager *m) {
        GuardStack *stack = NULL;
        GuardUnloadResult *u = NULL;
        bool foreign = false;
        int r;

        r = m->ops->read_stack(m->ops->userdata, &stack);
        if (r < 0)
                return r;
        for (size_t i = 0; i < stack->n_modules; i++)
                if (stack->modules[i].origin == GUARD_ORIGIN_OUT_OF_TREE ||
                    stack->modules[i].origin == GUARD_ORIGIN_NVIDIA)
                        foreign = true;
        guard_stack_free(stack);
        if (!foreign)
                return 0;
        log_info("Removing the half-loaded out-of-tree NVMe stack before restoring the in-tree one.");
        r = m->ops->unload(m->ops->userdata, &u);
        if (r < 0)
                return r;
        r = u->outcome == GUARD_UNLOAD_REMOVED || u->outcome == GUARD_UNLOAD_NOT_LOADED ? 0 : -EBUSY;
        guard_unload_result_free(u);
        return r;
}

static SwapEvent action_restore(Manager *m) {
        GuardLoadResult *l = NULL;
        SwapEvent ev = SWAP_EVENT_RESTORE_DONE;
        int r;

        /* Let the in-tree stack come back whatever way the library loads it. */
        r = reload_guard_remove();
        if (r < 0)
                log_warning_errno(r, "Cannot remove the reload guard " RELOAD_GUARD_PATH ", ignoring: %m");
        r = remove_partial_replacement(m);
        if (r < 0) {
                fail(m, NULL, "Cannot remove the half-loaded out-of-tree NVMe stack before restoring the in-tree one: %s.",
                     strerror(-r));
                return SWAP_EVENT_RESTORE_FAILED;
        }
        r = m->ops->restore(m->ops->userdata, modules_wanted(m), &l);
        if (r < 0) {
                fail(m, NULL, "Cannot restore the in-tree NVMe stack: %s. The node has no NVMe driver.", strerror(-r));
                return SWAP_EVENT_RESTORE_FAILED;
        }
        if (l->failed_module) {
                fail(m, l->failed_module, "Restoring the in-tree %s failed: %s (%s). The node may have no NVMe driver.",
                     l->failed_module, l->failed_reason ?: "", strerror(l->failed_errno ?: EIO));
                ev = SWAP_EVENT_RESTORE_FAILED;
        }
        guard_load_result_free(l);
        return ev;
}

static SwapEvent run_action(Manager *m, SwapAction a) {
        switch (a) {
        case SWAP_ACTION_UNLOAD:
                return action_unload(m);
        case SWAP_ACTION_RECHECK_USAGE:
                return action_recheck(m);
        case SWAP_ACTION_LOAD:
                return action_load(m);
        case SWAP_ACTION_RESTORE:
                return action_restore(m);
        case SWAP_ACTION_REPORT_RELOAD:
                report_event(LOG_WARNING, SWAPGUARD_MESSAGE_RELOAD_DETECTED,
                             &(ReportFields) { .state = swap_state_to_string(m->state), .origin = "in-tree",
                                               .container_id = container_short(m) },
                             "The in-tree NVMe stack was loaded again while it was meant to stay unloaded; "
                             "will swap when the driver is ready.");
                return _SWAP_EVENT_INVALID;
        default:
                return _SWAP_EVENT_INVALID;
        }
}

/* ---- state entry: the guard file, the deadline, the mount watch ------- */

static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;

        m->deadline = sd_event_source_disable_unref(m->deadline);
        log_warning("No ready file %s within ReadyTimeoutSec=%llu.", m->config->ready_file,
                    (unsigned long long) (m->config->ready_timeout_usec / 1000000ULL));
        if (swap_state_waits_for_ready(m->state) && m->state != SWAP_STATE_UNLOADED_WAITING_DRIVER)
                fail(m, NULL, "The driver container did not become ready within %llu s; nothing was changed.",
                     (unsigned long long) (m->config->ready_timeout_usec / 1000000ULL));
        manager_dispatch(m, SWAP_EVENT_READY_TIMEOUT);
        return 0;
}

static void apply_deadline(Manager *m) {
        uint64_t now = now_realtime_usec(), left;
        int r;

        if (!swap_state_waits_for_ready(m->state) || m->ready_present) {
                m->deadline = sd_event_source_disable_unref(m->deadline);
                m->record.ready_deadline_usec = 0;
                return;
        }
        if (m->deadline)
                return;
        if (m->record.ready_deadline_usec == 0)
                m->record.ready_deadline_usec = now + m->config->ready_timeout_usec;
        left = m->record.ready_deadline_usec > now ? m->record.ready_deadline_usec - now : 0;
        /* The one timer of the daemon: a deadline that means something. */
        r = sd_event_add_time_relative(m->event, &m->deadline, CLOCK_BOOTTIME, left, 1000000ULL, on_deadline, m);
        if (r < 0) {
                log_error_errno(r, "Cannot arm the ready deadline: %m");
                return;
        }
        (void) sd_event_source_set_description(m->deadline, "ready-deadline");
}

static void apply_state(Manager *m) {
        int r;

        if (swap_state_is_unloaded(m->state)) {
                if (!reload_guard_installed()) {
                        r = reload_guard_install(stack_modules);
                        if (r < 0)
                                log_warning_errno(r, "Cannot write the reload guard " RELOAD_GUARD_PATH
                                                  ", the host may load the in-tree stack back: %m");
                }
        } else {
                r = reload_guard_remove();
                if (r < 0)
                        log_warning_errno(r, "Cannot remove the reload guard " RELOAD_GUARD_PATH ": %m");
        }
        apply_deadline(m);
        (void) mount_watch_set_enabled(m->mounts, m->state == SWAP_STATE_BLOCKED);
        if (m->state != SWAP_STATE_BLOCKED) {
                free(m->last_blockers);
                m->last_blockers = NULL;
                strv_free(m->record.blockers);
                m->record.blockers = NULL;
        }
}

static void entered(Manager *m, SwapState old, SwapEvent ev) {
        if (m->state == old)
                return;
        log_info("State %s -> %s (%s).", swap_state_to_string(old), swap_state_to_string(m->state),
                 swap_event_to_string(ev));
        switch (m->state) {
        case SWAP_STATE_CONTAINER_SEEN:
                if (old == SWAP_STATE_IDLE || old == SWAP_STATE_RESTORED || old == SWAP_STATE_FAILED ||
                    old == SWAP_STATE_SWAPPED)
                        report_event(LOG_INFO, SWAPGUARD_MESSAGE_CONTAINER_SEEN,
                                     &(ReportFields) { .state = "container-seen", .container_id = container_short(m),
                                                       .pod = m->container ? m->container->pod_name : NULL,
                                                       .pid = m->container_pid },
                                     "Driver container %.12s (pod %s) is running.", container_short(m) ?: "?",
                                     m->container ? m->container->pod_name : "?");
                break;
        case SWAP_STATE_SWAPPED:
                report_swapped(m, old == SWAP_STATE_LOADING ? "loaded by nvme-swapguard from the driver container"
                                                            : "loaded by the driver container");
                break;
        case SWAP_STATE_RESTORING:
                m->restore_cause = ev;
                /* Not persisted yet: the record still names the container. */
                free(m->restore_container);
                m->restore_container = container_short(m) ? strdup(container_short(m)) : NULL;
                break;
        case SWAP_STATE_RESTORED: {
                /* ev is restore-done; the reason is what started the restore. */
                const char *why = swap_event_to_string(m->restore_cause) ?: swap_event_to_string(ev);

                report_event(LOG_WARNING, SWAPGUARD_MESSAGE_RESTORED,
                             &(ReportFields) { .state = "restored", .origin = "in-tree",
                                               .container_id = container_short(m) ?: m->restore_container },
                             "Restored the in-tree NVMe stack (%s).", why);
                record_message(m, "restored after %s", why);
                report_namespaces(m, SWAPGUARD_MESSAGE_NAMESPACES_BACK, "After the restore");
                break;
        }
        case SWAP_STATE_FAILED:
                if (!m->failure)
                        fail(m, NULL, "Gave up after %s.", swap_event_to_string(ev));
                break;
        case SWAP_STATE_IDLE:
                free(m->failure);
                m->failure = NULL;
                strv_free(m->record.modules_before);
                m->record.modules_before = NULL;
                m->record.namespaces_before = guard_namespaces_free(m->record.namespaces_before);
                break;
        default:
                break;
        }
}

static void manager_dispatch(Manager *m, SwapEvent ev) {
        for (unsigned n = 0; ev >= 0 && n < MAX_CHAIN; n++) {
                SwapContext ctx;
                SwapTransition t;
                SwapState old = m->state;

                if (read_context(m, &ctx, NULL) < 0)
                        return;
                t = swap_state_next(m->state, ev, &ctx);
                if (t.next < 0)
                        return;
                if (t.next != old && t.next != SWAP_STATE_FAILED) {
                        free(m->failure);
                        m->failure = NULL;
                }
                m->state = t.next;
                apply_state(m);
                entered(m, old, ev);
                persist(m);
                update_status(m);
                log_debug("Event %s in %s: -> %s, action %s.", swap_event_to_string(ev), swap_state_to_string(old),
                          swap_state_to_string(t.next), swap_action_to_string(t.action));
                ev = run_action(m, t.action);
        }
        persist(m);
        update_status(m);
}

/* ---- the driver container --------------------------------------------- */

static void container_forget(Manager *m) {
        m->container = container_identity_free(m->container);
        m->container_pid = 0;
        m->container_exit = sd_event_source_disable_unref(m->container_exit);
}

static void container_exited(Manager *m, const char *why) {
        if (!m->container)
                return;
        log_info("Driver container %.12s is gone (%s).", m->container->id, why);
        container_forget(m);
        if (m->started)
                manager_dispatch(m, SWAP_EVENT_CONTAINER_EXITED);
}

static int on_container_exit(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        container_exited(userdata, "its process exited");
        return 0;
}

/* Does the process belong to this container? Guards against a reused pid
 * after the container exited: CRI-O runs it in crio-<id>.scope. */
static bool pid_in_container(pid_t pid, const char *id) {
        _cleanup_free_ char *path = NULL, *line = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        size_t n = 0;

        if (host_pathf(&path, "/proc/%d/cgroup", (int) pid) < 0)
                return false;
        f = fopen(path, "re");
        if (!f)
                return false;
        while (getline(&line, &n, f) > 0)
                if (strstr(line, id))
                        return true;
        return false;
}

static ContainerIdentity *identity_copy(const ContainerIdentity *c) {
        ContainerIdentity *n = calloc(1, sizeof(*n));

        if (!n)
                return NULL;
        n->id = strdup(c->id);
        n->pod_namespace = strdup(c->pod_namespace);
        n->pod_name = strdup(c->pod_name);
        n->container_name = strdup(c->container_name);
        n->pod_uid = c->pod_uid ? strdup(c->pod_uid) : NULL;
        if (!n->id || !n->pod_namespace || !n->pod_name || !n->container_name)
                return container_identity_free(n);
        return n;
}

static void container_running(Manager *m, const ContainerIdentity *c, pid_t pid) {
        _cleanup_close_ int pidfd = -EBADF;
        int r;

        pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        if (pidfd < 0) {
                log_debug("Container %.12s: pid %d is not running.", c->id, (int) pid);
                if (m->container && streq(m->container->id, c->id))
                        container_exited(m, "its process is gone");
                return;
        }
        if (!pid_in_container(pid, c->id)) {
                log_warning("Container %.12s: pid %d from its pidfile is not in crio-%.12s...scope, ignoring it.",
                            c->id, (int) pid, c->id);
                return;
        }
        if (m->container && !streq(m->container->id, c->id))
                log_info("Following the newer driver container %.12s instead of %.12s.", c->id, m->container->id);
        container_forget(m);
        m->container = identity_copy(c);
        if (!m->container) {
                log_error("Out of memory.");
                return;
        }
        m->container_pid = pid;
        r = sd_event_add_io(m->event, &m->container_exit, pidfd, EPOLLIN, on_container_exit, m);
        if (r < 0) {
                log_warning_errno(r, "Cannot watch pid %d's exit, relying on the store and scopes: %m", (int) pid);
        } else {
                (void) sd_event_source_set_io_fd_own(m->container_exit, true);
                TAKE_FD(pidfd);
                (void) sd_event_source_set_description(m->container_exit, "driver-container-pidfd");
        }
        log_info("Driver container %.12s (pod %s) runs as pid %d.", c->id, c->pod_name, (int) pid);
        if (m->started)
                manager_dispatch(m, SWAP_EVENT_CONTAINER_STARTED);
}

static bool want_container(const ContainerIdentity *c, void *userdata) {
        Manager *m = userdata;

        return container_match(c, m->config->container_namespace, m->config->container_name,
                               m->config->pod_name_prefix);
}

static void on_store(ContainerStore *s, ContainerStoreEvent ev, const ContainerIdentity *c, pid_t pid, void *userdata) {
        Manager *m = userdata;

        if (ev == CONTAINER_STORE_PID)
                container_running(m, c, pid);
        else if (m->container && streq(m->container->id, c->id))
                container_exited(m, "removed from the container store");
}

static void on_scope(ScopeWatch *w, const char *id, bool added, void *userdata) {
        Manager *m = userdata;

        if (!added && m->container && streq(m->container->id, id))
                container_exited(m, "its crio scope was removed");
}

/* ---- ready file, uevents, mounts -------------------------------------- */

static void on_ready(PathWatch *w, bool exists, void *userdata) {
        Manager *m = userdata;

        if (exists == m->ready_present)
                return;
        m->ready_present = exists;
        log_info("Ready file %s %s.", m->config->ready_file, exists ? "appeared" : "is gone");
        if (exists && m->started)
                manager_dispatch(m, SWAP_EVENT_READY_APPEARED);
}

static int on_recheck(sd_event_source *s, void *userdata) {
        Manager *m = userdata;

        if (m->state == SWAP_STATE_BLOCKED)
                manager_dispatch(m, SWAP_EVENT_USAGE_CHANGED);
        else if ((m->state == SWAP_STATE_SWAPPED || m->state == SWAP_STATE_RESTORED) && m->record.missing_namespaces) {
                report_namespaces(m, SWAPGUARD_MESSAGE_NAMESPACES_BACK, "Later");
                persist(m);
                update_status(m);
        }
        return 0;
}

/* Coalesce bursts (a mount storm, a partition table re-read) into one check. */
static void schedule_recheck(Manager *m) {
        if (!m->started)
                return;
        if (m->state != SWAP_STATE_BLOCKED &&
            !((m->state == SWAP_STATE_SWAPPED || m->state == SWAP_STATE_RESTORED) && m->record.missing_namespaces))
                return;
        (void) sd_event_source_set_enabled(m->recheck, SD_EVENT_ONESHOT);
}

static void on_mounts(MountWatch *w, void *userdata) {
        schedule_recheck(userdata);
}

static bool is_stack_module(const char *name) {
        for (char *const *i = stack_modules; *i; i++)
                if (streq(*i, name))
                        return true;
        return false;
}

static void module_added(Manager *m, const char *name) {
        GuardStack *stack = NULL;
        const GuardModule *x;
        bool in_tree;

        if (m->ops->read_stack(m->ops->userdata, &stack) < 0)
                return;
        x = guard_stack_find(stack, name);
        in_tree = x && x->origin == GUARD_ORIGIN_IN_TREE;
        guard_stack_free(stack);
        if (x)
                manager_dispatch(m, in_tree ? SWAP_EVENT_MODULE_ADDED_IN_TREE : SWAP_EVENT_MODULE_ADDED_OTHER);
}

static void rescan_all(Manager *m) {
        SwapContext ctx;

        log_warning("Kernel uevents were lost (ENOBUFS): rescanning modules, containers and devices.");
        (void) container_store_rescan(m->store);
        if (read_context(m, &ctx, NULL) < 0)
                return;
        if (swap_state_is_unloaded(m->state) && ctx.stack_loaded)
                manager_dispatch(m, ctx.replacement_loaded ? SWAP_EVENT_MODULE_ADDED_OTHER
                                                           : SWAP_EVENT_MODULE_ADDED_IN_TREE);
        else if (!ctx.stack_loaded)
                manager_dispatch(m, SWAP_EVENT_STACK_GONE);
        schedule_recheck(m);
}

static void on_uevent(UdevWatch *w, UdevWatchEvent ev, const char *name, void *userdata) {
        Manager *m = userdata;
        SwapContext ctx;

        if (!m->started)
                return;
        switch (ev) {
        case UDEV_WATCH_MODULE_ADD:
                if (is_stack_module(name))
                        module_added(m, name);
                break;
        case UDEV_WATCH_MODULE_REMOVE:
                if (is_stack_module(name) && read_context(m, &ctx, NULL) >= 0 && !ctx.stack_loaded)
                        manager_dispatch(m, SWAP_EVENT_STACK_GONE);
                break;
        case UDEV_WATCH_BLOCK_CHANGE:
                schedule_recheck(m);
                break;
        case UDEV_WATCH_OVERFLOW:
                rescan_all(m);
                break;
        }
}

/* ---- signals ---------------------------------------------------------- */

/*
 * SIGTERM while the in-tree stack is unloaded and the driver's build is not
 * loaded yet (unloaded-waiting-driver): we restore the in-tree stack before
 * exiting, and the next start unloads it again if the container is still
 * compiling. Why not persist and let the next start resume?
 *  - We cannot tell a restart from a stop: `systemctl stop`, a MachineConfig
 *    rollback deleting the unit, or a disabled unit never start us again. A
 *    daemon that exits leaving the stack unloaded would leave the node
 *    without an NVMe driver for good, and nobody would load NVIDIA's build
 *    when the ready file appears.
 *  - The reload guard must not outlive us (it would keep the host from ever
 *    loading nvme), and without it nothing protects the unloaded state.
 *  - The cost of restoring is one extra unload/load of an idle stack while
 *    the container compiles; nothing is in use (we only unloaded because
 *    nothing was), so it is safe.
 * A SIGKILL gives us no chance: then the state file and reconcile resume
 * (the unit restarts us; its ExecStopPost= removes the guard file if not).
 * Everywhere else a stop changes nothing: blocked and container-seen have
 * touched nothing, swapped and restored are settled, and loading/restoring
 * are synchronous steps the signal waits for.
 */
static int on_terminate(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;

        if (m->stopping)
                return 0;
        m->stopping = true;
        (void) sd_notify(0, "STOPPING=1\nSTATUS=stopping");
        log_info("Stopping on %s.", strsignal((int) si->ssi_signo));
        if (swap_state_is_unloaded(m->state)) {
                SwapEvent ev = action_restore(m);

                m->state = ev == SWAP_EVENT_RESTORE_DONE ? SWAP_STATE_IDLE : SWAP_STATE_FAILED;
                report_event(ev == SWAP_EVENT_RESTORE_DONE ? LOG_NOTICE : LOG_ERR, SWAPGUARD_MESSAGE_STOP_RESTORED,
                             &(ReportFields) { .state = swap_state_to_string(m->state), .origin = "in-tree",
                                               .container_id = container_short(m) },
                             "Stopping while the in-tree NVMe stack was unloaded: %s.",
                             ev == SWAP_EVENT_RESTORE_DONE ? "restored it; the next start swaps again"
                                                           : "restoring it failed");
                record_message(m, "restored because the daemon stopped");
        }
        (void) reload_guard_remove();
        persist(m);
        return sd_event_exit(m->event, 0);
}

static int on_reload(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;
        Config *c = NULL;
        char **errors = NULL;
        int r;

        (void) sd_notify(0, "RELOADING=1");
        r = config_load(m->config_path, m->config_optional, &c, &errors);
        if (r == CONFIG_E_INVALID) {
                for (char **e = errors; e && *e; e++)
                        report_event(LOG_ERR, SWAPGUARD_MESSAGE_CONFIG_INVALID, NULL, "%s", *e);
                log_error("Configuration not reloaded: keeping the previous one.");
                strv_free(errors);
        } else if (r < 0)
                log_error_errno(r, "Cannot read %s, keeping the previous configuration: %m", m->config_path);
        else {
                bool ready_moved = !streq(c->ready_file, m->config->ready_file);
                bool store_moved = !streq(c->container_store, m->config->container_store);

                config_free(m->config);
                m->config = c;
                if (ready_moved || store_moved)
                        log_warning("ReadyFile= or ContainerStore= changed: they apply at the next restart.");
                log_info("Configuration reloaded.");
        }
        (void) sd_notify(0, "READY=1");
        /* A reload is also "look again": a blocked swap re-checks its blockers
         * (for operators who cleared them, and where no mount events come). */
        if (m->state == SWAP_STATE_BLOCKED)
                manager_dispatch(m, SWAP_EVENT_USAGE_CHANGED);
        update_status(m);
        return 0;
}

/* ---- lifecycle -------------------------------------------------------- */

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        /* Every exit path: the guard must not keep the host from loading nvme. */
        if (m->started)
                (void) reload_guard_remove();
        container_store_free(m->store);
        path_watch_free(m->ready);
        udev_watch_free(m->udev);
        scope_watch_free(m->scopes);
        mount_watch_free(m->mounts);
        sd_event_source_disable_unref(m->container_exit);
        sd_event_source_disable_unref(m->sig_term);
        sd_event_source_disable_unref(m->sig_int);
        sd_event_source_disable_unref(m->sig_hup);
        sd_event_source_disable_unref(m->deadline);
        sd_event_source_disable_unref(m->recheck);
        sd_event_unref(m->event);
        container_identity_free(m->container);
        config_free(m->config);
        state_file_clear(&m->record);
        free(m->config_path);
        free(m->failure);
        free(m->last_blockers);
        free(m->restore_container);
        free(m);
        return NULL;
}

static inline void manager_freep(Manager **m) {
        manager_free(*m);
}

int manager_new(const ManagerOptions *opts, Config *config, Manager **ret) {
        _cleanup_(manager_freep) Manager *m = calloc(1, sizeof(*m));
        int r;

        if (!m)
                return -ENOMEM;
        m->config_path = strdup(opts->config_path);
        if (!m->config_path)
                return -ENOMEM;
        m->config_optional = opts->config_optional;
        m->ops = opts->ops;
        m->state = SWAP_STATE_IDLE;
        m->record.state = SWAP_STATE_IDLE;
        m->restore_cause = _SWAP_EVENT_INVALID;
        r = sd_event_default(&m->event);
        if (r < 0)
                return r;
        m->config = config;
        *ret = TAKE_PTR(m);
        return 0;
}

static int add_signals(Manager *m) {
        int r;

        r = sd_event_add_signal(m->event, &m->sig_term, SIGTERM | SD_EVENT_SIGNAL_PROCMASK, on_terminate, m);
        if (r >= 0)
                r = sd_event_add_signal(m->event, &m->sig_int, SIGINT | SD_EVENT_SIGNAL_PROCMASK, on_terminate, m);
        if (r >= 0)
                r = sd_event_add_signal(m->event, &m->sig_hup, SIGHUP | SD_EVENT_SIGNAL_PROCMASK, on_reload, m);
        if (r < 0)
                return log_error_errno(r, "Cannot set up signal handling: %m");
        (void) sd_event_source_set_description(m->sig_term, "signal-term");
        (void) sd_event_source_set_description(m->sig_int, "signal-int");
        (void) sd_event_source_set_description(m->sig_hup, "signal-hup");
        return 0;
}

/* Sources whose absence only degrades what we see: log once, go on. */
static void add_optional_watches(Manager *m) {
        int r;

        r = udev_watch_new(m->event, on_uevent, m, &m->udev);
        if (r < 0)
                log_warning_errno(r, "Cannot listen to kernel uevents, module reloads will be seen late: %m");
        if (host_root_is_real()) {
                r = scope_watch_new(m->event, on_scope, m, &m->scopes);
                if (r < 0)
                        log_warning_errno(r, "Cannot watch crio-*.scope units over the system bus, "
                                          "relying on pidfiles and the container store: %m");
        } else
                log_info("Fake root %s: not watching systemd scopes, relying on pidfiles and the container store.",
                         host_root());
        r = mount_watch_new(m->event, on_mounts, m, &m->mounts);
        if (r < 0)
                log_info("Cannot poll /proc/1/mountinfo (%s): blocked swaps are re-checked on block uevents only.",
                         strerror(-r));
}

static int add_watches(Manager *m) {
        _cleanup_free_ char *ready = NULL, *store = NULL;
        int r;

        r = add_signals(m);
        if (r < 0)
                return r;
        r = sd_event_add_defer(m->event, &m->recheck, on_recheck, m);
        if (r < 0)
                return log_error_errno(r, "Cannot create the re-check source: %m");
        (void) sd_event_source_set_enabled(m->recheck, SD_EVENT_OFF);
        (void) sd_event_source_set_description(m->recheck, "usage-recheck");

        if (host_path(m->config->ready_file, &ready) < 0 || host_path(m->config->container_store, &store) < 0)
                return log_oom();
        r = path_watch_new(m->event, ready, "ready-file", on_ready, m, &m->ready);
        if (r < 0)
                return log_error_errno(r, "Cannot watch the ready file %s: %m", ready);
        m->ready_present = path_watch_exists(m->ready);
        r = container_store_new(m->event, store, want_container, on_store, m, &m->store);
        if (r < 0)
                return log_error_errno(r, "Cannot watch the container store %s: %m", store);
        add_optional_watches(m);
        return 0;
}

static void reconcile(Manager *m) {
        StateFile *previous = NULL;
        SwapContext ctx;
        ReconcileDecision d;
        int r;

        r = state_file_read(&previous);
        if (r < 0 && r != -ENOENT)
                log_warning_errno(r, "Ignoring the unreadable state file " STATE_FILE ": %m");
        /* What the previous instance meant to load tells whether a replacement
         * is complete (replacement_complete()); dropped below unless kept. */
        if (previous && previous->modules_before && !m->record.modules_before)
                (void) strv_copy(previous->modules_before, &m->record.modules_before);
        if (read_context(m, &ctx, NULL) < 0) {
                /* Cannot see the modules: do nothing rather than guess. */
                m->state = SWAP_STATE_FAILED;
                state_file_free(previous);
                return;
        }
        d = reconcile_decide(&(ReconcileInput) {
                .previous = previous,
                .container_id = m->container ? m->container->id : NULL,
                .stack_loaded = ctx.stack_loaded,
                .replacement_loaded = ctx.replacement_loaded,
        });
        m->record.modules_before = strv_free(m->record.modules_before);
        if (d.keep_record && previous) {
                m->record.modules_before = TAKE_PTR(previous->modules_before);
                m->record.namespaces_before = TAKE_PTR(previous->namespaces_before);
                m->record.ready_deadline_usec = previous->ready_deadline_usec;
                m->record.message = TAKE_PTR(previous->message);
        }
        log_info("Start: previous state %s, container %.12s, stack %s, ready file %s: resuming in %s%s%s.",
                 previous ? swap_state_to_string(previous->state) : "none",
                 m->container ? m->container->id : "none",
                 ctx.replacement_loaded ? "replaced" : ctx.stack_loaded ? "in-tree" : "absent",
                 m->ready_present ? "present" : "absent", swap_state_to_string(d.state),
                 d.event >= 0 ? " then " : "", d.event >= 0 ? swap_event_to_string(d.event) : "");
        state_file_free(previous);
        m->state = d.state;
        m->started = true;
        apply_state(m);
        persist(m);
        if (d.event >= 0)
                manager_dispatch(m, d.event);
        update_status(m);
}

int manager_start(Manager *m) {
        int r;

        r = add_watches(m);
        if (r < 0)
                return r;
        reconcile(m);
        report_event(LOG_INFO, SWAPGUARD_MESSAGE_STARTED,
                     &(ReportFields) { .state = swap_state_to_string(m->state), .container_id = container_short(m) },
                     "nvme-swapguard started in state %s.", swap_state_to_string(m->state));
        /* Pings only from the loop: a stuck loop is a dead daemon. */
        r = sd_event_set_watchdog(m->event, true);
        if (r < 0)
                log_warning_errno(r, "Cannot enable the watchdog, ignoring: %m");
        (void) sd_notify(0, "READY=1");
        return 0;
}

int manager_run(Manager *m) {
        int r = sd_event_loop(m->event);

        if (r < 0)
                return log_error_errno(r, "Event loop failed: %m");
        return r;
}

SwapState manager_get_state(const Manager *m) {
        return m->state;
}
