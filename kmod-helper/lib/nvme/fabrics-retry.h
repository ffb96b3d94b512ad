/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* When to try a fabrics connection that is not back again, and when to give
 * it up: the kernel's own rule for a lost connection (nvme_tcp/rdma/fc's
 * reconnect work, drivers/nvme/host/fabrics.c nvmf_should_reconnect()):
 * every reconnect_delay seconds until ctrl_loss_tmo seconds have passed
 * since it was lost, ctrl_loss_tmo -1 ("off") meaning forever. A connection
 * dropped by a module's removal gets none of that from the kernel, so the
 * connect pass applies it. Pure: the time is passed in, never read here. */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

/* The kernel's defaults (NVMF_DEF_RECONNECT_DELAY, NVMF_DEF_CTRL_LOSS_TMO). */
#define FABRICS_DEFAULT_RECONNECT_DELAY_SEC 10
#define FABRICS_DEFAULT_CTRL_LOSS_TMO_SEC 600

/* A failed connect in the kernel's terms: what the write to
 * /dev/nvme-fabrics answered. */
typedef enum FabricsErrorKind {
        FABRICS_ERROR_NONE,
        FABRICS_ERROR_REFUSED,   /* ECONNREFUSED: nothing listens there */
        FABRICS_ERROR_NO_ANSWER, /* EAGAIN, ETIMEDOUT, EHOSTUNREACH, ENETUNREACH: accepted but
                                    no answer to the handshake within its timeout, or no route */
        FABRICS_ERROR_AUTH,      /* EKEYREJECTED, EKEYEXPIRED, EACCES, EPERM: authentication refused */
        FABRICS_ERROR_EXISTS,    /* EALREADY, EEXIST: the kernel has that connection */
        FABRICS_ERROR_INVALID,   /* EINVAL: options refused (by us or the kernel) */
        FABRICS_ERROR_OTHER,
        _FABRICS_ERROR_KIND_MAX,
        _FABRICS_ERROR_KIND_INVALID = -EINVAL,
} FabricsErrorKind;

/* The kind of a connect's errno (positive or negative); 0 is FABRICS_ERROR_NONE. */
FabricsErrorKind fabrics_error_kind_from_errno(int error);
/* "refused", "no-answer", "auth", "exists", "invalid", "other"; NULL for NONE and others. */
const char *fabrics_error_kind_to_string(FabricsErrorKind k);
/* The reverse; NULL and unknown text: _FABRICS_ERROR_KIND_INVALID. */
FabricsErrorKind fabrics_error_kind_from_string(const char *s);

typedef struct FabricsRetryPlan {
        bool give_up;              /* ctrl_loss_tmo has passed: the connection is lost */
        uint64_t next_try_usec;    /* when to try again; 0 when given up */
        uint64_t give_up_at_usec;  /* lost_at + ctrl_loss_tmo; 0: never (ctrl_loss_tmo -1) */
} FabricsRetryPlan;

/* After a failed try at now_usec of a connection lost at lost_usec (both
 * the same clock, usec): the next try is now + reconnect_delay (no later
 * than the give-up time, so that the last try is not skipped), the
 * connection is given up once now has reached lost + ctrl_loss_tmo.
 * reconnect_delay and ctrl_loss_tmo in seconds as recorded: < 0 for
 * ctrl_loss_tmo is "forever" (FABRICS_OPT_OFF), FABRICS_OPT_UNSET (-2) for
 * either means the kernel's default; a reconnect_delay below 1 counts as 1. */
FabricsRetryPlan fabrics_retry_plan(uint64_t now_usec, uint64_t lost_usec, int reconnect_delay, int ctrl_loss_tmo);
