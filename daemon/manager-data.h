/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The daemon's data (struct Manager): a composition of the swap's owners,
 * each in its own header with its own data, and the event sources that
 * feed them (an opaque ManagerSources: only the manager's files see into
 * it). manager.c owns it (creates, frees, feeds events):
 *   m->swap     the state machine and its persisted record   swap-machine.h
 *   m->follow   the driver container followed                swap-follow.h
 *   m->stack    the stack's health: settle, refused restore  swap-stack.h
 *   m->publish  the metrics and the status document's write  swap-publish.h
 *   m->fabrics  NVMe over Fabrics requests                   swap-fabrics-data.h
 * The manager's own (daemon/, beside manager.c): no file of swap/ sees
 * it. Each takes the owners it reads and writes (or a const view of
 * them), and returns what happened (an event, an action's outcome); only
 * the manager dispatches (manager-dispatch.h), so nothing calls back up
 * into the manager. */

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "config/daemon-config.h"
#include "node/node-ops.h"
#include "swap/swap-fabrics-data.h"
#include "swap/swap-follow.h"
#include "swap/swap-loop.h"
#include "swap/swap-machine.h"
#include "swap/swap-publish.h"
#include "swap/swap-snapshot.h"
#include "swap/swap-stack.h"
#include "swap/swap-step.h"

typedef struct Manager Manager;
typedef struct ManagerSources ManagerSources;
/* The pin and its watch (node/pin-holder.h, watch/usage-watch.h: swap-pin.c). */
typedef struct PinHolder PinHolder;
typedef struct UsageWatch UsageWatch;

struct Manager {
        /* The loop, the manager's alone (manager*.c); the swap reaches
         * its timers and its idle write only through the table. */
        sd_event *event;
        SwapLoop loop;
        const NodeOps *ops;
        char *config_path;
        bool config_optional;
        Config *config;

        SwapMachine swap;
        SwapFollow follow;
        SwapStack stack;
        SwapPublish publish;
        SwapFabrics fabrics;
        /* The step under way: its snapshot of the stack, whether it
         * saved the record (swap-step.h). */
        SwapStep step;

        /* The event sources (the manager's own: manager-sources.h) and
         * what the ready file's watch last saw. */
        ManagerSources *sources;
        bool ready_present;

        /* The pin and its always-on watch (swap-pin.c). */
        PinHolder *pin;
        UsageWatch *usage;
};

/* The node as a file of swap/ reads it (swap-snapshot.h). */
static inline SwapNodeView manager_node_view(Manager *m) {
        return (SwapNodeView) { .step = &m->step, .ops = m->ops, .loop = &m->loop };
}
