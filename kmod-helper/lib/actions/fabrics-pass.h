/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What a capture or connect pass did (actions/fabrics-capture.h,
 * actions/fabrics-reconnect.h), one entry per connection, for the CLI's
 * text and --json and for result.json (actions/fabrics-result.h). Never a
 * secret. */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvme/fabrics-retry.h"
#include "nvme/fabrics-topology.h"
#include "util/macro.h"

typedef enum FabricsVerb {
        FABRICS_VERB_CAPTURE,
        FABRICS_VERB_CONNECT,
        _FABRICS_VERB_MAX,
        _FABRICS_VERB_INVALID = -EINVAL,
} FabricsVerb;

typedef enum FabricsOutcome {
        FABRICS_OUTCOME_CAPTURED,             /* live, recorded (with its secrets) */
        FABRICS_OUTCOME_BACK,                 /* connected by this pass */
        FABRICS_OUTCOME_ALREADY_LIVE,         /* the kernel has it (someone connected it) */
        FABRICS_OUTCOME_FAILED,               /* the connect failed; tried again at next_try */
        FABRICS_OUTCOME_SKIPPED_NO_TRANSPORT, /* its transport module is not loaded: not tried,
                                                 the kernel would modprobe the host's own */
        FABRICS_OUTCOME_LOST,                 /* given up: ctrl_loss_tmo passed */
        _FABRICS_OUTCOME_MAX,
        _FABRICS_OUTCOME_INVALID = -EINVAL,
} FabricsOutcome;

/* The process exit codes of the verbs (and the daemon's reading of them). */
enum {
        FABRICS_EXIT_OK = 0,      /* all back, captured, or nothing to do */
        FABRICS_EXIT_ERROR = 1,   /* the verb failed as a whole (see the error) */
        FABRICS_EXIT_PENDING = 2, /* some still pending: to be tried again */
        FABRICS_EXIT_LOST = 3,    /* some given up */
};

typedef struct FabricsPassEntry {
        FabricsOutcome outcome;
        FabricsErrorKind error_kind; /* FABRICS_ERROR_NONE unless failed or lost */
        int error;                   /* positive errno of the failure; 0 otherwise */
        char *message;               /* one line for an operator on a failure ("option traddr
                                        holds ',', '=' or a control character"); NULL when none */
        char *controller;            /* its name now ("nvme3"); NULL when not connected */
        uint64_t next_try_usec;      /* CLOCK_REALTIME; 0 when none */
        uint64_t give_up_at_usec;    /* 0: never (ctrl_loss_tmo -1) or not known */
} FabricsPassEntry;

typedef struct FabricsPassResult {
        FabricsVerb verb;
        FabricsTopology *connections; /* as recorded: identity and old name, never a secret */
        FabricsPassEntry *entries;    /* parallel to connections->controllers */
        char *error;                  /* the verb failed as a whole: why, naming the file */
        int exit_code;                /* FABRICS_EXIT_* */
} FabricsPassResult;

/* An empty result for verb; NULL on ENOMEM. */
FabricsPassResult *fabrics_pass_result_new(FabricsVerb verb);
FabricsPassResult *fabrics_pass_result_free(FabricsPassResult *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(FabricsPassResult *, fabrics_pass_result_free);

/* Adds a copy of c with outcome (the rest of the entry zero) and returns
 * the entry; NULL on ENOMEM. */
FabricsPassEntry *fabrics_pass_result_add(FabricsPassResult *r, const FabricsController *c, FabricsOutcome outcome);

/* Sets the verb's failure (printf-style): exit FABRICS_EXIT_ERROR. 0 or -ENOMEM. */
int fabrics_pass_result_fail(FabricsPassResult *r, const char *fmt, ...) _printf_(2, 3);

/* The exit code from the entries (or the error): error 1, some lost 3,
 * some failed or skipped 2, else 0. Also stored in r->exit_code. */
int fabrics_pass_result_settle(FabricsPassResult *r);

const char *fabrics_verb_to_string(FabricsVerb v);
FabricsVerb fabrics_verb_from_string(const char *s);
/* "captured", "back", "already-live", "failed", "skipped-no-transport", "lost". */
const char *fabrics_outcome_to_string(FabricsOutcome o);

/* A pass under way: its result, the lock and the record read under it. */
typedef struct FabricsPass {
        FabricsPassResult *result;
        int lock_fd;
        FabricsTopology *record;
} FabricsPass;
#define FABRICS_PASS_NULL { .lock_fd = -EBADF }

/* The start every pass shares: the result for verb, the lock
 * (fabrics-lock.h, waiting up to FABRICS_LOCK_WAIT_MSEC) and the record
 * under it (an empty topology when there is none). A record that does not
 * parse is set aside (fabrics_record_set_aside()) and the verb fails,
 * naming the file, the field and where it was kept. 0 with all three; 1
 * when the verb failed as a whole (p->result->error says why; no lock, no
 * record); -ENOMEM. */
int fabrics_pass_begin(FabricsVerb verb, FabricsPass *p);
/* Releases what p still holds (the lock last). */
void fabrics_pass_done(FabricsPass *p);
