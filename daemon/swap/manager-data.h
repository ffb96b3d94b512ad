/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The daemon's data (struct Manager): what the swap knows, the driver
 * container it follows, the pin, and the event sources. manager.c owns it
 * (creates, frees, feeds events); the swap's files read and write it:
 *   swap-context.c      what is true now, for the state table
 *   swap-actions.c      what it does: the actions through GuardOps, their
 *                       outcomes returned as events
 *   swap-lifecycle.c    the driver container's whole life (issue 8)
 *   swap-record.c       what the swap knows: the record, the state file, STATUS=
 *   swap-report.c       what it tells: journal entries of each step and state
 *   swap-pin.c          the pin matched to the namespaces' use
 * Data only, below those files: they return what happened (an event) and
 * only the manager dispatches (manager-dispatch.h), so no file here calls
 * back up into the manager. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "container/container-store.h"
#include "daemon-config.h"
#include "container/driver-container.h"
#include "container/driver-env.h"
#include "guard/guard-ops.h"
#include "watch/fabrics-watch.h"
#include "watch/mount-tables.h"
#include "watch/mount-watch.h"
#include "watch/path-watch.h"
#include "guard/pin-holder.h"
#include "watch/scope-watch.h"
#include "publish/state-file.h"
#include "swap/stack-settle.h"
#include "swap/swap-state.h"
#include "swap/unload-moment.h"
#include "watch/udev-watch.h"
#include "watch/usage-watch.h"

typedef struct Manager Manager;
/* The metrics file's own data (swap-metrics.c). */
typedef struct SwapMetrics SwapMetrics;

/* NVMe over Fabrics through nvme-swapguard-fabrics.service (swap-fabrics.c). */
typedef struct SwapFabrics {
        FabricsWatch *watch;      /* the request and its answer; NULL: no fabrics handling */
        bool captured;            /* the capture of the connections live now answered: the
                                     unload may drop them (until that unload is over) */
        bool drop_said;           /* the capture's list was told as dropped by the unload */
        bool capture_failed;      /* the last capture got no answer or failed: said once */
        bool capture_wanted;      /* asked for while a connect was awaited */
        char *connect_after;      /* a connect wanted (while another request was awaited) or
                                     awaited: "after the load", for the journal; NULL: none */
        bool connect_again;       /* wanted again while one was awaited */
        bool connect_quiet;       /* only an unload refused after a capture: tidies the record */
        sd_event_source *retry;   /* CLOCK_BOOTTIME: the next connect of pending connections */
        sd_event_source *capture_retry; /* (manager-fabrics.c) the unload tried again after a
                                           capture that got no answer */
} SwapFabrics;

/* The pod's end (issue 20, pod-end.c). */
typedef struct PodEnd {
        char *container_id;    /* the ended container whose build is loaded; NULL: none */
        char *pod;             /* its pod's name */
        sd_event_source *wait; /* the bounded wait for its own cleanup (the manager's handler) */
        uint64_t exited_usec;  /* CLOCK_MONOTONIC at its exit: the wait's cap counts from here */
        bool restoring;        /* the wait is over and its build was still loaded: ours to
                                  take back (the context's pod_end_restore) */
} PodEnd;

struct Manager {
        sd_event *event;
        const GuardOps *ops;
        char *config_path;
        bool config_optional;
        Config *config;

        /* What the swap knows (swap-record.c). */
        SwapState state;
        StateFile record;            /* what the state file says; state mirrors .state */
        bool started;                /* first reconcile done: events now drive the machine */
        bool stopping;
        char *failure;               /* why we are FAILED, for the report */
        char *last_blockers;         /* to report a block once, not on every re-check */
        pid_t blocker_pids[MOUNT_WATCH_PIDS_MAX]; /* processes the blockers named (a mount in their
                                                     mount namespace, a device open): the mount
                                                     watch follows their exit (issue 28) */
        size_t n_blocker_pids;
        SwapEvent restore_cause;     /* what sent us to restoring: the "why" of the report */
        char *restore_container;     /* the container it was for (often gone by then) */
        bool restore_rehearsed;      /* observe: the last restore was only reported (issue 23) */

        /* The driver container we follow (driver-container.c). */
        DriverContainer container;

        /* Event sources (manager.c, manager-dispatch.c). */
        bool ready_present;
        ContainerStore *store;
        PathWatch *ready;
        UdevWatch *udev;
        ScopeWatch *scopes;
        MountTables *mount_tables;   /* the one mountinfo watch: mounts and usage subscribe */
        MountWatch *mounts;
        sd_event_source *sig_term, *sig_int, *sig_hup;
        sd_event_source *deadline;
        sd_event_source *recheck;    /* deferred, coalesced usage re-check */
        sd_event_source *publish_later; /* the status document, written when idle (swap-record.c);
                                           floating: the loop owns it */

        /* The pin and its always-on watch (swap-pin.c). */
        PinHolder *pin;
        UsageWatch *usage;
        /* The driver container's whole life (issue 8, swap-lifecycle.c). */
        DriverEnvDecision env;         /* what the followed container's environment decided */
        char *env_reported_for;        /* the container whose decisions were reported */
        bool build_ruled_out;          /* no NVMe build will come from the followed container */
        bool earlier_build;            /* the build loaded came from before the followed container */
        bool ready_stale;              /* the ready file exists but predates the followed container */
        uint64_t ended_ready_usec;     /* when the ready file there at the last container's end was
                                          made (0: none): that container's, never a later one's */
        sd_event_source *stack_settle; /* judges the stack once module changes settle (stack-judge.c) */
        StackSettleState settle;       /* the settle's samples so far (stack-judge.c) */
        bool restore_gave_up;          /* the last action was a restore the kernel refused (swap-actions.c) */
        PodEnd pod_end;                /* the pod's end (issue 20, pod-end.c) */
        SwapFabrics fabrics;           /* NVMe over Fabrics (swap-fabrics.c, manager-fabrics.c) */
        SwapMetrics *metrics;          /* NULL until swap_metrics_start() */
        UnloadMoment moment;           /* UnloadAt=auto: the moment chosen for the followed container */
        bool moment_decided;           /* (swap-moment.c) */
};
