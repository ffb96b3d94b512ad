/* SPDX-License-Identifier: Apache-2.0 */
#include <errno.h>
#include <stdlib.h>
#include <systemd/sd-bus.h>

#include "host/crio.h"
#include "publish/log.h"
#include "watch/scope-watch.h"
#include "util/macro.h"

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"

struct ScopeWatch {
        sd_bus *bus;
        ScopeWatchHandler handler;
        void *userdata;
        bool reloading;   /* between Reloading(true) and Reloading(false) */
};

static void unit_seen(ScopeWatch *w, const char *unit, bool added) {
        char id[65];

        if (!crio_id_from_scope(unit, id))
                return;
        /* `systemctl daemon-reload` sends UnitRemoved, then UnitNew, for every
         * unit, crio scopes included (systemd#376): not an exit. */
        if (!added && w->reloading) {
                log_debug("Ignoring UnitRemoved of %s during systemd's reload.", unit);
                return;
        }
        w->handler(w, id, added, w->userdata);
}

static int on_reloading(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        ScopeWatch *w = userdata;
        int active = 0;

        if (sd_bus_message_read(m, "b", &active) < 0)
                return 0;
        w->reloading = active;
        log_debug("systemd %s reloading.", active ? "is" : "finished");
        return 0;
}

static int on_unit_signal(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        ScopeWatch *w = userdata;
        const char *unit = NULL, *path = NULL;

        if (sd_bus_message_read(m, "so", &unit, &path) < 0)
                return 0;
        unit_seen(w, unit, streq(sd_bus_message_get_member(m), "UnitNew"));
        return 0;
}

static int on_list_units(sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        ScopeWatch *w = userdata;
        const char *unit;
        int r;

        if (sd_bus_message_is_method_error(reply, NULL)) {
                log_warning("Cannot list crio-*.scope units: %s; relying on pidfiles.",
                            sd_bus_message_get_error(reply)->message);
                return 0;
        }
        r = sd_bus_message_enter_container(reply, 'a', "(ssssssouso)");
        while (r > 0) {
                r = sd_bus_message_read(reply, "(ssssssouso)", &unit, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                        NULL, NULL);
                if (r > 0)
                        unit_seen(w, unit, true);
        }
        return 0;
}

static int on_subscribed(sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        if (sd_bus_message_is_method_error(reply, NULL))
                log_warning("Cannot subscribe to systemd's unit signals: %s; relying on pidfiles.",
                            sd_bus_message_get_error(reply)->message);
        return 0;
}

ScopeWatch *scope_watch_free(ScopeWatch *w) {
        if (!w)
                return NULL;
        sd_bus_flush_close_unref(w->bus);
        free(w);
        return NULL;
}


int scope_watch_new(sd_event *e, ScopeWatchHandler handler, void *userdata, ScopeWatch **ret) {
        _cleanup_(scope_watch_freep) ScopeWatch *w = calloc(1, sizeof(*w));
        int r;

        if (!w)
                return -ENOMEM;
        w->handler = handler;
        w->userdata = userdata;
        r = sd_bus_open_system(&w->bus);
        if (r < 0)
                return r;
        (void) sd_bus_set_description(w->bus, "systemd-scopes");
        r = sd_bus_attach_event(w->bus, e, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return r;
        /* Matches first, then Subscribe, then the listing: nothing falls between.
         * Reloading first of all: the UnitRemoved it brackets must be seen in it. */
        r = sd_bus_match_signal_async(w->bus, NULL, SD_DEST, SD_PATH, SD_MANAGER, "Reloading", on_reloading,
                                      NULL, w);
        if (r >= 0)
                r = sd_bus_match_signal_async(w->bus, NULL, SD_DEST, SD_PATH, SD_MANAGER, "UnitNew",
                                              on_unit_signal, NULL, w);
        if (r >= 0)
                r = sd_bus_match_signal_async(w->bus, NULL, SD_DEST, SD_PATH, SD_MANAGER, "UnitRemoved",
                                              on_unit_signal, NULL, w);
        if (r >= 0)
                r = sd_bus_call_method_async(w->bus, NULL, SD_DEST, SD_PATH, SD_MANAGER, "Subscribe", on_subscribed,
                                             w, NULL);
        if (r >= 0)
                r = sd_bus_call_method_async(w->bus, NULL, SD_DEST, SD_PATH, SD_MANAGER, "ListUnitsByPatterns",
                                             on_list_units, w, "asas", 0, 1, CRIO_SCOPE_PATTERN);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(w);
        return 0;
}
