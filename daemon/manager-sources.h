/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The event sources the manager feeds the swap from: the container store,
 * the ready file, udev, the CRI-O scopes, the mount table, the signals, the
 * ready deadline, the coalesced usage re-check, the node labels' refresh,
 * the privileged reader's end, the swap's timers and the status document's
 * idle write (manager-timers.c) and the capture's retry (manager-fabrics.c). Only the manager's own
 * files (manager*.c) hold and read them; the swap's owners
 * (manager-data.h) see an opaque pointer, so no file of swap/ can
 * reach a source. The pin and its usage watch stay with the swap's pin
 * (swap/swap-pin.c). */

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "container/container-store.h"
#include "sandbox/privileged-reader.h"
#include "manager-data.h"
#include "watch/mount-tables.h"
#include "watch/mount-watch.h"
#include "watch/path-watch.h"
#include "watch/scope-watch.h"
#include "watch/udev-watch.h"

/* The node labels' file (manager-labels.c). */
typedef struct ManagerLabels {
        sd_event_source *refresh; /* the refresh's deadline: before the written expiry */
        char *written;            /* what the last file said, its expiry apart; NULL: none written */
        char *off;                /* why no labels are published; NULL: they are */
        bool said;                /* whether the journal and STATUS= said which */
} ManagerLabels;

struct ManagerSources {
        ContainerStore *store;
        PathWatch *ready;
        UdevWatch *udev;
        ScopeWatch *scopes;
        MountTables *mount_tables;   /* the one mountinfo watch: the guard's mounts and the pin's
                                        usage watch subscribe */
        MountWatch *mounts;
        sd_event_source *sig_term, *sig_int, *sig_hup;
        sd_event_source *deadline;
        sd_event_source *recheck;    /* deferred, coalesced usage re-check */
        ManagerLabels labels;        /* the node labels' file and its refresh */
        PrivilegedReader *reader;    /* main.c's; its end watched (manager-reader.c) */
        sd_event_source *reader_end;
        sd_event_source *timers[_SWAP_TIMER_MAX]; /* the swap's (manager-timers.c), made at the first arm */
        sd_event_source *idle_publish;            /* the status document, written when idle */
        sd_event_source *capture_retry;           /* the unload tried again after a capture that got no
                                                     answer (manager-fabrics.c) */
};
