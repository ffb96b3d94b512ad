/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* NVMe over Fabrics across the swap: removing a transport module deletes
 * every controller of that transport (its module exit does), and nothing
 * brings them back by itself. The work on them is nvme-swapguard-fabrics.
 * service's (root, the host's network, the node's DH-HMAC-CHAP secrets;
 * watch/fabrics-watch.h): the daemon asks it to capture them before an
 * unload that drops them (the unload waits for the answer: blocked, "waiting
 * for the capture", never a blocking call) and to connect them after the
 * load, after every restore and on a start that finds a record; connections
 * not back are asked for again at their next try (every reconnect_delay, as
 * the kernel would) until they are back or given up (ctrl_loss_tmo). Each
 * answer is told in the journal and kept in the state file and the status
 * document; never a secret (the daemon never opens the secrets' file). A
 * driver container whose tree lacks a transport the node uses gets no swap
 * at all (no-build, decided before any unload). */

#include <stdbool.h>

#include "container/driver-env.h"
#include "node/node-ops.h"
#include "swap/stack-health.h"
#include "swap/swap-fabrics-data.h"
#include "swap/swap-follow.h"
#include "swap/swap-loop.h"
#include "swap/swap-machine.h"
#include "swap/swap-snapshot.h"
#include "watch/fabrics-result.h"

/* The requests (capture, connect) take their own owner, fab, which they
 * write; the state and the container they only read, for stopping and for
 * the reports (s, follow); the loop's table arms the next try. */

/* Before an unload: 0 when it may go ahead (no live connection, or their
 * capture answered: then said once which ones it drops), 1 when it must
 * wait for a capture (swap_fabrics_capture(); the answer re-checks through
 * the manager), -errno when the live connections cannot be read (the
 * caller must not unload: safety first). Observe: read and said, 0. */
int swap_fabrics_before_unload(SwapFabrics *fab, const SwapMachine *s, const SwapFollow *follow, const NodeOps *ops);
/* Asks for the capture (once while one is awaited). Only when nothing
 * blocks the unload otherwise: a capture is of the connections live at the
 * moment the unload goes ahead, not of those of an hour before. */
void swap_fabrics_capture(SwapFabrics *fab, const SwapMachine *s, const SwapFollow *follow, const SwapLoop *loop);
/* The unload that swap_fabrics_before_unload() allowed is over; dropped:
 * it removed the stack (false: refused or failed and put back, nothing
 * dropped: the record the capture wrote is tidied by a quiet connect). */
void swap_fabrics_unload_over(SwapFabrics *fab, const SwapMachine *s, const SwapFollow *follow, const SwapLoop *loop,
                              bool dropped);
/* Asks for a connect of what the record names, through the transports
 * loaded now; `after` is said in the journal ("after the load"). */
void swap_fabrics_connect(SwapFabrics *fab, const SwapMachine *s, const SwapFollow *follow, const SwapLoop *loop,
                          const char *after);
/* The pending connections' next try is due (SWAP_TIMER_FABRICS_RETRY). */
void swap_fabrics_retry_due(SwapFabrics *fab, const SwapMachine *s, const SwapFollow *follow, const SwapLoop *loop);
/* Start: a record left with pending connections while a stack is loaded is
 * connected now (asked for; READY=1 never waits for it); while unloaded the
 * load or the restore to come connects. */
void swap_fabrics_start(SwapFabrics *fab, const SwapMachine *s, const SwapFollow *follow, const SwapLoop *loop);

typedef enum SwapFabricsNext {
        SWAP_FABRICS_NEXT_NONE,
        SWAP_FABRICS_NEXT_RECHECK,       /* a capture answered: the blocked unload goes on now */
        SWAP_FABRICS_NEXT_RECHECK_LATER, /* a capture got no answer: the unload is tried again later */
} SwapFabricsNext;

/* An answer of the unit (or its absence: res NULL, error says why): told,
 * written into the record (s) and STATUS='s NVMe-oF part. The caller then
 * has the record saved (it changed) and STATUS= said, and asks for what
 * was wanted meanwhile: swap_fabrics_ask_wanted(). */
SwapFabricsNext swap_fabrics_result(SwapFabrics *fab, SwapMachine *s, const SwapFollow *follow, const SwapLoop *loop,
                                    const char *verb, const FabricsResult *res, const char *error);
/* What was wanted while another request was awaited is asked for now,
 * capture first (an unload waits on it). */
void swap_fabrics_ask_wanted(SwapFabrics *fab, const SwapMachine *s, const SwapFollow *follow, const SwapLoop *loop);
/* The namespaces are in use again: the capture answered is stale by the
 * time the use ends, so the unload to come captures anew. */
void swap_fabrics_capture_stale(SwapFabrics *fab);
void swap_fabrics_free(SwapFabrics *fab, const SwapLoop *loop);

/* A newly followed container whose tree (openable path) already holds an
 * NVMe build: a transport the node's connections need missing there rules
 * the build out (no-build: follow and the record's message), before
 * anything is unloaded. */
void swap_fabrics_container_followed(SwapFollow *follow, SwapMachine *s, const NodeOps *ops, const char *tree,
                                     TreeBuild build);
/* Before a load from tree (host path): the same check against what the
 * capture named (the connections are down by then). True: reported, ruled out. */
bool swap_fabrics_tree_lacks_transport(SwapFollow *follow, SwapMachine *s, const char *tree);
/* nvme_core without nvme is a fabrics-only node, not a broken stack, when
 * nvme_fabrics is loaded and the node has no NVMe PCI function at all (found
 * in the VM, layout none: the daemon "repaired" such a node by loading nvme). */
bool swap_fabrics_only_node(const NodeOps *ops, const NodeStack *stack, StackHealth h);
