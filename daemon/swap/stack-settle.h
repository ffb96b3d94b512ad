/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* When the NVMe stack may be judged after it changed, and when a broken
 * judgment may lead to a repair. Someone else's load in progress is not a
 * fault: an older driver image insmods its own nvme_core, then nvme (its
 * shell forks between the two, and on a busy node that gap outlasts any
 * fixed quiet window); an `openibd restart` takes modules out one by one.
 * Judged in that gap, the stack is "nvme_core without nvme", and a repair
 * then would take the container's build out from under it (the new
 * namespace already open by udev): seen in vm-daemon-older-image beside
 * another VM run.
 *
 * So, while the followed driver container is at work (alive, its ready file
 * not there), the stack is judged only once its work settled: none of its
 * processes in a module call (or running a module tool) over a short
 * window, the loaded set unchanged. A broken judgment is made twice, a
 * window apart, on the same loaded set, before a repair; and a repair never
 * takes out a module something uses beyond its holders (the caller reports
 * and waits instead).
 *
 * Pure: the caller samples (the clock, the loaded set, the container's
 * processes) and keeps the StackSettleState; tests pass the clock in. */

#include <stdbool.h>
#include <stdint.h>

#include "node/node-ops.h"
#include "modules/proc-modules.h"

#define STACK_SETTLE_USEC_PER_SEC 1000000ULL
/* After the last module came or went: a modprobe's dependencies come one
 * after the other (nvme_core a moment before nvme). */
#define STACK_SETTLE_QUIET_USEC (2ULL * STACK_SETTLE_USEC_PER_SEC)
/* How often the container's processes are looked at while one of them is
 * in a module call. */
#define STACK_SETTLE_POLL_USEC (250ULL * 1000ULL)
/* The container's processes seen out of any module call, first and last
 * sample this far apart: the fork between two insmods is not the end. */
#define STACK_SETTLE_IDLE_USEC (1ULL * STACK_SETTLE_USEC_PER_SEC)
/* A container whose module calls never end (a hung insmod) does not keep
 * the stack unjudged for ever. */
#define STACK_SETTLE_MAX_USEC (120ULL * STACK_SETTLE_USEC_PER_SEC)
/* A broken judgment and the one that confirms it, at least this far apart. */
#define STACK_SETTLE_CONFIRM_USEC (2ULL * STACK_SETTLE_USEC_PER_SEC)
/* A broken stack whose repair would take out a module in use: looked at
 * again this often (a use that ends sends no event). */
#define STACK_SETTLE_IN_USE_USEC (5ULL * STACK_SETTLE_USEC_PER_SEC)

typedef struct StackSettleSample {
        uint64_t now;           /* CLOCK_MONOTONIC, usec */
        uint64_t stack_sig;     /* stack_settle_signature() of the loaded stack now */
        bool container_working; /* a followed driver container, alive, its ready file not there */
        unsigned module_calls;  /* of its processes, those in a module call or running a module tool */
} StackSettleSample;

typedef struct StackSettleState {
        uint64_t last_change;   /* the last module uevent, or a change of the loaded set seen */
        uint64_t waiting_since; /* the first sample that waited on the container's work; 0: none */
        uint64_t idle_since;    /* the first sample since then with no module call; 0: none */
        uint64_t stack_sig;
        bool have_sig;
        uint64_t suspect_at;    /* a broken judgment to confirm; 0: none */
        uint64_t suspect_sig;
        bool reported_wait;     /* the wait on the container was said (once per wait) */
        bool reported_in_use;   /* the broken stack in use was said (once per stack) */
} StackSettleState;

typedef enum StackSettleVerdict {
        STACK_SETTLE_JUDGE,     /* judge the stack now */
        STACK_SETTLE_WAIT,      /* look again at .next */
        _STACK_SETTLE_VERDICT_MAX,
} StackSettleVerdict;

typedef enum StackSettleWhy {
        STACK_SETTLE_WHY_QUIET,          /* WAIT: a module came or went less than QUIET ago */
        STACK_SETTLE_WHY_NOBODY,         /* JUDGE: no container at work */
        STACK_SETTLE_WHY_CALLS,          /* WAIT: the container's processes are in module calls */
        STACK_SETTLE_WHY_IDLE_WINDOW,    /* WAIT: no call now, the idle window not over */
        STACK_SETTLE_WHY_SETTLED,        /* JUDGE: the container's work settled */
        STACK_SETTLE_WHY_TOO_LONG,       /* JUDGE: its calls went on past MAX */
        STACK_SETTLE_WHY_CONFIRM,        /* WAIT: broken once, to be judged again */
        STACK_SETTLE_WHY_CONFIRMED,      /* JUDGE (act): broken twice on the same loaded set */
        _STACK_SETTLE_WHY_MAX,
} StackSettleWhy;

typedef struct StackSettle {
        StackSettleVerdict verdict;
        StackSettleWhy why;
        uint64_t next;          /* WAIT: when to look again (CLOCK_MONOTONIC, usec) */
} StackSettle;

/* A stack module came or went (a uevent) at now. */
void stack_settle_changed(StackSettleState *s, uint64_t now);
/* Whether the stack may be judged now, from the sample. */
StackSettle stack_settle_step(StackSettleState *s, const StackSettleSample *x);
/* The stack was judged broken on x: JUDGE (why CONFIRMED) when a broken
 * judgment of the same loaded set came at least CONFIRM before, else WAIT. */
StackSettle stack_settle_broken(StackSettleState *s, const StackSettleSample *x);
/* The stack was judged (working, or acted on): the next change starts afresh. */
void stack_settle_reset(StackSettleState *s);

/* Which loaded members, and of which origin: two samples that differ saw a
 * change, whether or not its uevent came. */
uint64_t stack_settle_signature(const NodeStack *s);

/* A loaded stack member of another build than the in-tree one (what a
 * repair takes out) with references that its holders do not explain (an
 * open or mounted namespace): its name, *ret_refs those references; NULL
 * when none. pm: /proc/modules. */
const char *stack_settle_repair_in_use(const NodeStack *s, const ProcModules *pm, unsigned *ret_refs);

const char *stack_settle_why_to_string(StackSettleWhy w);
