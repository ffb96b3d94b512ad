/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* Our own exclusive claims on the NVMe namespaces, held across a removal
 * so that nobody can mount, swapon or stack on one between the re-check
 * and delete_module: while we hold /dev/nvme1n1 with O_EXCL, the kernel
 * answers EBUSY to every other exclusive opener of it and of its
 * partitions (bd_may_claim: a claimed whole disk refuses claims of its
 * partitions, so holding the whole disk covers them; holding both is not
 * even possible).
 *
 * What a held open pins (drivers/nvme/host/core.c, 6.1): nvme_core always
 * (the owner of the disk's block_device_operations); for a namespace that
 * is not a multipath head also its controller's transport (nvme_ns_open
 * takes ctrl->ops->module). So the opens of plain namespaces are closed
 * right before their transport is removed (from then on the kernel's own
 * reference protects them: a mount in the gap pins the transport and the
 * removal fails with EAGAIN), those of multipath heads (which only pin
 * nvme_core, and which the kernel does not protect) right before
 * nvme_core, after which the caller re-checks.
 *
 * The references our opens take are measured (refcnt before and after) so
 * that a re-check of the module graph does not count them as users. */

#include <stdbool.h>
#include <stddef.h>

#include "modules/module-stack.h"
#include "nvme/nvme-block-devices.h"
#include "util/macro.h"

typedef struct HeldClaim {
        char *device;           /* "nvme1n1" */
        const char *transport;  /* the module the open pins besides nvme_core; NULL for a head */
        int fd;
} HeldClaim;

typedef struct ClaimHold {
        HeldClaim *claims;
        size_t n_claims;
        int *own_refs; /* per nvme_stack_modules entry: references our opens hold */
} ClaimHold;

/* Opens every namespace of d (not its partitions) with O_EXCL. A namespace
 * that cannot be claimed (busy, gone, not permitted) is simply not held: the
 * caller's next usage check probes it and reports it. 0 or -ENOMEM. */
int claim_hold_take(const NvmeBlockDevices *d, ClaimHold **ret);

/* Closes the claims whose open pins module (for "nvme_core": all of them).
 * Returns how many were closed. */
size_t claim_hold_release_pinning(ClaimHold *h, const char *module);

ClaimHold *claim_hold_free(ClaimHold *h);
DEFINE_TRIVIAL_CLEANUP_FUNC(ClaimHold *, claim_hold_free);

/* Whether device (a namespace or one of its partitions) is covered. */
bool claim_hold_covers(const ClaimHold *h, const char *device);

/* The names held, for usage_check_holding(): a strv (NULL-terminated, may be empty). */
int claim_hold_devices(const ClaimHold *h, char ***ret);

/* Takes our own references out of a module stack read while holding. */
void claim_hold_discount(const ClaimHold *h, ModuleStack *stack);
