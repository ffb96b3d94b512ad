/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The pin: while a namespace is in use, hold open the character device of
 * every controller serving it (/dev/nvmeN), so that delete_module of every
 * module under it fails with EAGAIN, whoever calls it (openibd's
 * `modprobe -r nvme`, a person's `rmmod nvme`).
 *
 * What opening /dev/nvmeN pins, read in drivers/nvme/host/core.c (6.1:
 * nvme_cdev_add gives the cdev the transport as owner, nvme_dev_open takes
 * ctrl->ops->module, the file operations belong to nvme_core) and seen on
 * Linux 6.1 under QEMU (tests/kmod-helper/vm/guard-pin-refs.sh): two
 * references on the controller's transport module (nvme for PCIe,
 * nvme_tcp, nvme_rdma, nvme_fc) and one on nvme_core. So `rmmod nvme`
 * fails with EAGAIN while the fd is open, and nvme_core stays as the
 * dependency of a module that cannot go. That matters most for a
 * multipath head (nvmeXnY over hidden paths nvmeXcYnZ): a mount of a head
 * takes a reference on nvme_core only (the same case shows an exclusive
 * open of a head: nvme_core +1, nvme +0), so without the pin `rmmod nvme`
 * succeeds under a mounted filesystem (FIELD-NOTES section 3). A head is
 * served by every controller of its subsystem: all of them are pinned.
 * The open fails with EWOULDBLOCK while a controller is not live
 * (resetting, connecting): that is a problem to report and retry, not a
 * reason to give up the others.
 *
 * Library code: no logging. The caller decides when to update (after each
 * usage check) and must release the pin before its own guarded unload. */

#include <stdbool.h>
#include <stddef.h>

#include "usage/usage-check.h"

typedef struct PinnedController {
        char *name;         /* "nvme1" */
        const char *module; /* its transport module ("nvme"); NULL when unknown */
        int fd;             /* the open /dev/<name>; -EBADF when it could not be opened */
        int open_errno;     /* positive errno of the failed open, else 0 */
} PinnedController;

typedef struct UsagePin {
        PinnedController *controllers; /* sorted by name */
        size_t n_controllers;
        char **reasons;  /* NULL-terminated, one per usage: "nvme pinned: /dev/nvme1n1
                            mounted at /data (ext4)" */
        char **problems; /* NULL-terminated: "could not pin nvme1 (for nvme1n1): ..." */
} UsagePin;

/* An empty pin (nothing held). NULL on ENOMEM. */
UsagePin *usage_pin_new(void);
/* Closes every descriptor and frees; NULL-safe. */
UsagePin *usage_pin_free(UsagePin *p);

/* Makes the pin match a usage check's result: opens the controllers newly
 * needed, keeps the ones already open, closes the ones no longer needed,
 * and rebuilds reasons and problems. A controller that cannot be opened is
 * a problem (tried again at the next update). NULL usage or no usage:
 * releases everything. 0 or -ENOMEM. */
int usage_pin_update(UsagePin *p, const UsageReport *usage);

/* Closes every descriptor, before our own guarded unload. */
void usage_pin_release(UsagePin *p);

/* Whether any controller is held open. */
bool usage_pin_held(const UsagePin *p);

/* The held modules, distinct, in controller order ("nvme", "nvme_tcp"): a strv. */
int usage_pin_modules(const UsagePin *p, char ***ret);

/* One usage in the pin's words, for the given modules:
 * "nvme pinned: /dev/nvme1n1 mounted at /data (ext4)". Pure. */
int usage_pin_reason(const Usage *u, char *const *modules, char **ret);
