/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The manager's parts, shared by the files that make it up (and by the
 * tests that build one with scripted guard outcomes):
 *   manager.c           event sources, their handlers, the dispatch loop
 *   swap-record.c       what the swap knows: the record, the state file, STATUS=
 *   swap-report.c       what it tells: journal entries of each step and state
 *   swap-actions.c      what it does: the context, the actions through GuardOps,
 *                       their outcomes as events
 *   driver-container.c  the followed driver container
 * Nothing outside these files (and their tests) includes this header. */

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "container/container-store.h"
#include "daemon-config.h"
#include "container/driver-container.h"
#include "container/driver-env.h"
#include "guard/guard-ops.h"
#include "manager.h"
#include "watch/mount-watch.h"
#include "watch/path-watch.h"
#include "guard/pin-holder.h"
#include "watch/scope-watch.h"
#include "publish/state-file.h"
#include "swap/pod-end.h"
#include "swap/swap-state.h"
#include "watch/udev-watch.h"
#include "watch/usage-watch.h"

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
        SwapEvent restore_cause;     /* what sent us to restoring: the "why" of the report */
        char *restore_container;     /* the container it was for (often gone by then) */

        /* The driver container we follow (driver-container.c). */
        DriverContainer container;

        /* Event sources (manager.c). */
        bool ready_present;
        ContainerStore *store;
        PathWatch *ready;
        UdevWatch *udev;
        ScopeWatch *scopes;
        MountWatch *mounts;
        sd_event_source *sig_term, *sig_int, *sig_hup;
        sd_event_source *deadline;
        sd_event_source *recheck;    /* deferred, coalesced usage re-check */

        /* The pin and its always-on watch (swap-pin.c). */
        PinHolder *pin;
        UsageWatch *usage;
        /* The driver container's whole life (issue 8, swap-lifecycle.c). */
        DriverEnvDecision env;         /* what the followed container's environment decided */
        char *env_reported_for;        /* the container whose decisions were reported */
        bool build_ruled_out;          /* no NVMe build will come from the followed container */
        bool earlier_build;            /* the build loaded came from before the followed container */
        bool ready_stale;              /* the ready file exists but predates the followed container */
        sd_event_source *stack_settle; /* judges the stack once module uevents settle */
        /* The pod's end (issue 20, pod-end.c). */
        PodEnd pod_end;
};

/* manager.c: feeds one event (and the outcomes of the actions it leads to)
 * through the state table. */
void manager_dispatch(Manager *m, SwapEvent ev);
