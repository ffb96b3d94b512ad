/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The answer of nvme-swapguard-fabrics.service to one request of the
 * daemon: /run/nvme-swapguard-fabrics/result.json, written by the CLI's
 * `fabrics serve-request` as the last step of its run (docs: the file
 * formats in README.md, "NVMe over Fabrics nodes"). Pure: parsing and the
 * choice of the next try, no clock read and no file opened here, so that
 * Criterion tests walk them (tests/unit/daemon/test-fabrics-result.c). */

#include <errno.h>
#include <stdint.h>
#include <stddef.h>

#include "util/macro.h"

typedef enum FabricsResultOutcome {
        FABRICS_RESULT_CAPTURED,             /* capture: recorded with its secrets */
        FABRICS_RESULT_BACK,                 /* connect: connected again */
        FABRICS_RESULT_ALREADY_LIVE,         /* connect: live without us */
        FABRICS_RESULT_FAILED,               /* connect: refused now, tried again at next_try_usec */
        FABRICS_RESULT_SKIPPED_NO_TRANSPORT, /* connect: its transport module is not loaded */
        FABRICS_RESULT_LOST,                 /* connect: past ctrl_loss_tmo, given up */
        _FABRICS_RESULT_OUTCOME_MAX,
        _FABRICS_RESULT_OUTCOME_INVALID = -EINVAL,
} FabricsResultOutcome;

typedef struct FabricsResultConnection {
        char *description;      /* one line naming it, never a secret */
        char *transport;        /* "tcp" */
        char *traddr;
        char *trsvcid;
        char *subsysnqn;
        char *controller;       /* the new controller's name ("nvme3"), NULL when not live */
        char *old_name;         /* its name when captured (display only, never an identity) */
        char *message;          /* the unit's words on a failure (the kernel's, when it could read them) */
        char *error_kind;       /* "refused", "no-answer", "auth", "exists", "invalid", "other"; NULL */
        FabricsResultOutcome outcome;
        int error;              /* positive errno; 0 */
        uint64_t next_try_usec;   /* CLOCK_REALTIME; 0: none */
        uint64_t give_up_at_usec; /* CLOCK_REALTIME; 0: never (ctrl_loss_tmo -1) or not retried */
} FabricsResultConnection;

typedef struct FabricsResult {
        uint64_t token;
        char *verb;             /* "capture", "connect" */
        uint64_t finished_at_usec;
        int exit;               /* the CLI's exit status: 0 all done, 2 some pending, 3 some lost, 1 error */
        char *error;            /* the verb failed as a whole; NULL */
        FabricsResultConnection *connections;
        size_t n_connections;
} FabricsResult;

FabricsResult *fabrics_result_free(FabricsResult *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(FabricsResult *, fabrics_result_free);

const char *fabrics_result_outcome_to_string(FabricsResultOutcome o);
FabricsResultOutcome fabrics_result_outcome_from_string(const char *s);

/* text: the file's contents; path names the file in errors. 0 with *ret,
 * or -EINVAL with *ret_error naming the file and the field
 * ("/run/.../result.json: connections[1].outcome: unknown value \"x\""),
 * -ENOMEM. */
int fabrics_result_parse(const char *path, const char *text, FabricsResult **ret, char **ret_error);

/* Only the token of a result (0 when it cannot be read): a result that does
 * not parse may still be an old one, not the answer awaited. */
uint64_t fabrics_result_peek_token(const char *text);

/* How many connections are back (back, already-live), still pending
 * (failed, skipped-no-transport) and lost. */
void fabrics_result_count(const FabricsResult *r, size_t *ret_back, size_t *ret_pending, size_t *ret_lost);

/* The next connect: the earliest next_try_usec of the connections still
 * pending, as a delay from now_usec (both CLOCK_REALTIME; 0 when due
 * already). UINT64_MAX when none is pending with a next try. A try in the
 * past or a clock stepped backwards gives 0, never a wait longer than the
 * result asked for; a next try further than max_usec from now (a clock
 * stepped forward) is capped at max_usec. */
uint64_t fabrics_result_next_delay(const FabricsResult *r, uint64_t now_usec, uint64_t max_usec);
