/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The driver container being followed and what the swap concluded about
 * it: what its environment decided, whether a build can still come from
 * it, whether the build loaded is an earlier one, whether its ready file
 * is stale, the moment its unload was set for (UnloadAt=auto) and, once
 * it ended, the pod's end. Written by the manager's container handlers,
 * swap-lifecycle.c, swap-moment.c and pod-end.c; read by the context, the
 * actions and the reports. */

#include <stdbool.h>
#include <stdint.h>

#include "container/driver-container.h"
#include "container/driver-env.h"
#include "swap/unload-moment.h"

/* The pod's end (pod-end.c). */
typedef struct PodEnd {
        char *container_id;    /* the ended container whose build is loaded; NULL: none */
        char *pod;             /* its pod's name */
        uint64_t exited_usec;  /* CLOCK_MONOTONIC at its exit: the wait's cap counts from here (the
                                  wait itself is SWAP_TIMER_POD_END) */
        bool restoring;        /* the wait is over and its build was still loaded: ours to
                                  take back (the context's pod_end_restore) */
} PodEnd;

typedef struct SwapFollow {
        DriverContainer container;     /* the one followed (driver-container.c) */
        DriverEnvDecision env;         /* what the followed container's environment decided */
        char *env_reported_for;        /* the container whose decisions were reported */
        bool build_ruled_out;          /* no NVMe build will come from the followed container */
        bool earlier_build;            /* the build loaded came from before the followed container */
        bool ready_stale;              /* the ready file exists but predates the followed container */
        uint64_t ended_ready_usec;     /* when the ready file there at the last container's end was
                                          made (0: none): that container's, never a later one's */
        PodEnd pod_end;                /* the pod's end (pod-end.c) */
        UnloadMoment moment;           /* UnloadAt=auto: the moment chosen for the followed container */
        bool moment_decided;           /* (swap-moment.c) */
} SwapFollow;
