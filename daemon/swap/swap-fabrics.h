/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* NVMe over Fabrics across the swap (issue 27): removing a transport module
 * deletes every controller of that transport (its module exit does), and
 * nothing brings them back by itself. So: the connections are recorded
 * before an unload (the library's fabrics record, on disk: a crash between
 * the unload and the reconnect still knows them), reconnected after the
 * load, after every restore and on a start that finds the record pending
 * with a stack loaded; a driver container whose tree lacks a transport the
 * node uses gets no swap at all (no-build, decided before any unload).
 * Each connection's outcome is kept in the record (state file, status
 * document) and told in the journal; never a secret. */

#include <stdbool.h>

#include "container/driver-env.h"
#include "swap/stack-health.h"
#include "swap/manager-data.h"

/* The bound of one reconnect: the whole call, every connection and its
 * namespaces (the library polls sysfs within it). */
#define SWAP_FABRICS_TIMEOUT_SEC 30u

/* Before an unload: records the live connections (observe: reads them) and
 * says once which ones the unload drops and will reconnect. -errno when
 * they could not be read or recorded: the caller must not unload then
 * (safety first: connections dropped with nothing to reconnect them). */
int swap_fabrics_before_unload(Manager *m);
/* Reconnects what the record names through the transports loaded now;
 * `after` is said in the journal ("after the load"). quiet: only failures
 * are told (an unload that removed nothing: the record is merely cleared). */
void swap_fabrics_reconnect(Manager *m, const char *after, bool quiet);
/* Start: a pending record while a stack is loaded is reconnected now;
 * while unloaded it is only shown (the load or the restore reconnects). */
void swap_fabrics_start(Manager *m);
/* A newly followed container whose tree (openable path) already holds an
 * NVMe build: a transport the node's connections need missing there rules
 * the build out (no-build), before anything is unloaded. */
void swap_fabrics_container_followed(Manager *m, const char *tree, TreeBuild build);
/* Before a load from tree (host path): the same check against what the
 * record names (the connections are down by then). True: reported, ruled out. */
bool swap_fabrics_tree_lacks_transport(Manager *m, const char *tree);
/* nvme_core without nvme is a fabrics-only node, not a broken stack, when
 * nvme_fabrics is loaded and the node has no NVMe PCI function at all (found
 * in the VM, layout none: the daemon "repaired" such a node by loading nvme). */
bool swap_fabrics_only_node(Manager *m, StackHealth h);
