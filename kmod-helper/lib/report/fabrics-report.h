/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* What the swap does to the node's fabrics connections, for the CLI's
 * check, plan, unload --dry-run, load, restore and status, and for the
 * daemon's journal and status document. Pure: builds lines and json-c
 * objects from data already read; never a secret (the topology has none).
 *
 * Lines, one per connection:
 *   plan        "nvme1: tcp 127.0.0.1:4420 nqn.2026-12.test:sub: disconnected by the
 *               unload, reconnected after the load"
 *   result      "nvme1: tcp 127.0.0.1:4420 nqn...: reconnected as nvme3 (nvme3n1)"
 *               "nvme1: tcp ...: not reconnected: connection refused (...)"
 * JSON (field names are a contract; absent values are null):
 *   connection  the objects of fabrics_controller_to_json() (nvme/fabrics-json.c):
 *               {"name","transport","traddr","trsvcid","host_traddr","host_iface",
 *                "subsysnqn","hostnqn","hostid","state","ctrl_loss_tmo",
 *                "reconnect_delay","fast_io_fail_tmo","kato","nr_io_queues",
 *                "queue_size","tls","dhchap_secret","dhchap_ctrl_secret","description",
 *                "namespaces":[{"name","nsid","nguid","uuid","eui"}]}
 *               options: a number, "off" for FABRICS_OPT_OFF, null when unset;
 *               "dhchap_*": true when a DH-HMAC-CHAP secret is set (never the secret)
 *   result      {"description","address","old_name","new_name","outcome","errno",
 *                "error","kernel_message","namespaces":[..],"missing":[..]} */

#include <stdio.h>

#include "actions/fabrics-reconnect.h"
#include "nvme/fabrics-topology.h"

struct json_object;

/* What the unload does to each connection (suffix: what follows it, e.g.
 * "reconnected after the load", "reconnected after the restore"). A strv. 0 or -ENOMEM. */
int fabrics_report_plan_lines(const FabricsTopology *t, const char *suffix, char ***ret);
/* What the reconnect did, one line per entry. A strv. 0 or -ENOMEM. */
int fabrics_report_result_lines(const FabricsReconnectResult *r, char ***ret);

/* A JSON array of connection objects. 0 or -ENOMEM. */
int fabrics_report_topology_json(const FabricsTopology *t, struct json_object **ret);
/* A JSON array of result objects. 0 or -ENOMEM. */
int fabrics_report_result_json(const FabricsReconnectResult *r, struct json_object **ret);

/* The lines under a heading ("Fabrics connections:"), indented; nothing for
 * an empty list. 0 or -errno. */
int fabrics_report_lines_text(const char *heading, char *const *lines, FILE *f);
