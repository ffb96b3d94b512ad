/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Kernel uevents for modules (a module going live or being removed) and for
 * NVMe block devices, from the kernel's netlink group (needs no udevd),
 * attached to sd-event. When the socket overflows (ENOBUFS) events were
 * lost: the handler gets UDEV_WATCH_OVERFLOW and must rescan everything. */

#include <systemd/sd-event.h>

#include "util/macro.h"

typedef struct UdevWatch UdevWatch;

typedef enum UdevWatchEvent {
        UDEV_WATCH_MODULE_ADD,     /* name: the module */
        UDEV_WATCH_MODULE_REMOVE,
        UDEV_WATCH_BLOCK_CHANGE,   /* name: nvme* block device, any action */
        UDEV_WATCH_BLOCK_OTHER,    /* name: any other block device (dm-0, md0: a holder may have
                                      come or gone), any action */
        UDEV_WATCH_OVERFLOW,       /* name: NULL */
} UdevWatchEvent;

typedef void (*UdevWatchHandler)(UdevWatch *w, UdevWatchEvent ev, const char *name, void *userdata);

int udev_watch_new(sd_event *e, UdevWatchHandler handler, void *userdata, UdevWatch **ret);
UdevWatch *udev_watch_free(UdevWatch *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(UdevWatch *, udev_watch_free);
