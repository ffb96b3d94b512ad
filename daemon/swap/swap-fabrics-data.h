/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* NVMe over Fabrics through nvme-swapguard-fabrics.service: what was asked
 * of it and what is still wanted (swap-fabrics.c; its answers routed by
 * manager-fabrics.c). The pending connections' next try is the loop's
 * SWAP_TIMER_FABRICS_RETRY; the unload's retry after an unanswered capture
 * is the manager's own (manager-fabrics.c). */

#include <stdbool.h>

/* The request file and its answer (watch/fabrics-watch.h, used by swap-fabrics.c). */
typedef struct FabricsWatch FabricsWatch;

typedef struct SwapFabrics {
        FabricsWatch *watch;      /* the request and its answer; NULL: no fabrics handling */
        bool captured;            /* the capture of the connections live now answered: the
                                     unload may drop them (until that unload is over) */
        bool drop_said;           /* the capture's list was told as dropped by the unload */
        bool capture_failed;      /* the last capture got no answer or failed: said once */
        bool capture_wanted;      /* asked for while a connect was awaited */
        char *connect_after;      /* a connect wanted (while another request was awaited) or
                                     awaited: "after the load", for the journal; NULL: none */
        bool connect_again;       /* wanted again while one was awaited */
        bool connect_quiet;       /* only an unload refused after a capture: tidies the record */
} SwapFabrics;
