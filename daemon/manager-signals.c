/* SPDX-License-Identifier: Apache-2.0 */
/* The manager's signals: SIGTERM/SIGINT stop (through the state table),
 * SIGHUP reloads the configuration. The stop is also the privileged
 * reader's end's (manager-reader.c). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "manager-dispatch.h"
#include "manager-labels.h"
#include "manager-sources.h"
#include "manager-signals.h"
#include "publish/log.h"
#include "publish/report.h"
#include "swap/reload-block.h"
#include "swap/swap-pin.h"
#include "swap/swap-record.h"
#include "util/strv.h"

/*
 * SIGTERM while the in-tree stack is unloaded and the driver's build is not
 * loaded yet (unloaded-waiting-driver): stop-requested, and the state table
 * sends us through restoring to idle: we restore the in-tree stack before
 * exiting, and the next start unloads it again if the container is still
 * compiling. Why not persist and let the next start resume?
 *  - We cannot tell a restart from a stop: `systemctl stop`, a MachineConfig
 *    rollback deleting the unit, or a disabled unit never start us again. A
 *    daemon that exits leaving the stack unloaded would leave the node
 *    without an NVMe driver for good, and nobody would load NVIDIA's build
 *    when the ready file appears.
 *  - The reload block must not outlive us (it would keep the host from ever
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
int manager_stop(Manager *m, int exit_code) {
        if (m->swap.stopping)
                return 0;
        m->swap.stopping = true;
        (void) sd_notify(0, "STOPPING=1\nSTATUS=stopping");
        /* The table restores when the stack is unloaded (and ends in idle, so
         * the next start swaps again); elsewhere a stop changes nothing. */
        manager_dispatch(m, SWAP_EVENT_STOP_REQUESTED);
        (void) sd_notify(0, "STATUS=stopping");
        (void) reload_block_remove();
        manager_save(m, SWAP_SAVE_NOW);
        manager_labels_stop(m); /* no labels of a node nobody guards */
        return sd_event_exit(m->event, exit_code);
}

static int on_terminate(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;

        if (m->swap.stopping)
                return 0;
        log_info("Stopping on %s.", strsignal((int) si->ssi_signo));
        return manager_stop(m, 0);
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

                if (c->mode != m->config->mode) {
                        /* The guard ops are chosen at start (main.c): a restart switches. */
                        log_warning("Mode= changed: it applies at the next restart (systemctl restart "
                                    "nvme-swapguard); still %s.", swap_mode_to_string(m->config->mode));
                        c->mode = m->config->mode;
                }

                config_free(m->config);
                m->config = c;
                if (ready_moved || store_moved)
                        log_warning("ReadyFile= or ContainerStore= changed: they apply at the next restart.");
                log_info("Configuration reloaded.");
        }
        (void) sd_notify(0, "READY=1");
        /* A reload is also "look again": a blocked swap re-checks its blockers
         * (for operators who cleared them, and where no mount events come). */
        if (swap_state_waits_for_usage(m->swap.state))
                manager_dispatch(m, SWAP_EVENT_USAGE_CHANGED);
        /* ... and the stack is judged again, as after a module uevent (one
         * lost, or none at all: a fake root's kernel sends none). */
        manager_stack_changed(m);
        swap_pin_refresh(m->pin, m->usage, &m->swap, &m->follow, &m->loop);
        swap_status_update(&m->swap, &m->follow);
        manager_labels_update(m); /* NodeLabelsDirectory= may have changed */
        return 0;
}

int manager_signals_add(Manager *m) {
        int r;

        r = sd_event_add_signal(m->event, &m->sources->sig_term, SIGTERM | SD_EVENT_SIGNAL_PROCMASK, on_terminate, m);
        if (r >= 0)
                r = sd_event_add_signal(m->event, &m->sources->sig_int, SIGINT | SD_EVENT_SIGNAL_PROCMASK, on_terminate, m);
        if (r >= 0)
                r = sd_event_add_signal(m->event, &m->sources->sig_hup, SIGHUP | SD_EVENT_SIGNAL_PROCMASK, on_reload, m);
        if (r < 0)
                return log_error_errno(r, "Cannot set up signal handling: %m");
        (void) sd_event_source_set_description(m->sources->sig_term, "signal-term");
        (void) sd_event_source_set_description(m->sources->sig_int, "signal-int");
        (void) sd_event_source_set_description(m->sources->sig_hup, "signal-hup");
        return 0;
}
