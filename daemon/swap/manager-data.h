/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The daemon's data (struct Manager): a composition of the swap's owners,
 * each in its own header with its own data, and the event sources that
 * feed them. manager.c owns it (creates, frees, feeds events):
 *   m->swap     the state machine and its persisted record   swap-machine.h
 *   m->follow   the driver container followed                swap-follow.h
 *   m->stack    the stack's health: settle, refused restore  swap-stack.h
 *   m->publish  the metrics and the status document's write  swap-publish.h
 *   m->fabrics  NVMe over Fabrics requests                   swap-fabrics-data.h
 * A file of swap/ that needs one owner takes that owner (or a const view
 * of it), not the Manager; those that still take Manager * read several.
 * Data only, below those files: they return what happened (an event) and
 * only the manager dispatches (manager-dispatch.h), so no file here calls
 * back up into the manager. */

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "container/container-store.h"
#include "daemon-config.h"
#include "guard/guard-ops.h"
#include "guard/pin-holder.h"
#include "swap/swap-fabrics-data.h"
#include "swap/swap-follow.h"
#include "swap/swap-machine.h"
#include "swap/swap-publish.h"
#include "swap/swap-stack.h"
#include "watch/mount-watch.h"
#include "watch/path-watch.h"
#include "watch/scope-watch.h"
#include "watch/udev-watch.h"
#include "watch/usage-watch.h"

typedef struct Manager Manager;

struct Manager {
        sd_event *event;
        const GuardOps *ops;
        char *config_path;
        bool config_optional;
        Config *config;

        SwapMachine swap;
        SwapFollow follow;
        SwapStack stack;
        SwapPublish publish;
        SwapFabrics fabrics;

        /* Event sources (manager.c, manager-dispatch.c). */
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
};
