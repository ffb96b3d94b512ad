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
 *   result      "nvme1: tcp 127.0.0.1:4420 nqn...: reconnected as nvme3"
 *               "nvme1: tcp ...: not back (refused: Connection refused); tried again ..."
 * JSON (field names are a contract; absent values are null):
 *   connection  the objects of fabrics_controller_to_json() (nvme/fabrics-json.h)
 *   result      the object of fabrics_result_to_json() (actions/fabrics-result.h) */

#include <stdio.h>

#include "actions/fabrics-pass.h"
#include "nvme/fabrics-topology.h"

struct json_object;

/* What the unload does to each connection (suffix: what follows it, e.g.
 * "reconnected after the load", "reconnected after the restore"). A strv. 0 or -ENOMEM. */
int fabrics_report_plan_lines(const FabricsTopology *t, const char *suffix, char ***ret);
/* What the reconnect did, one line per entry. A strv. 0 or -ENOMEM. */
int fabrics_report_result_lines(const FabricsPassResult *r, char ***ret);

/* A JSON array of connection objects. 0 or -ENOMEM. */
int fabrics_report_topology_json(const FabricsTopology *t, struct json_object **ret);
/* The pass's result object (actions/fabrics-result.h, token 0). 0 or -ENOMEM. */
int fabrics_report_result_json(const FabricsPassResult *r, struct json_object **ret);

/* The lines under a heading ("Fabrics connections:"), indented; nothing for
 * an empty list. 0 or -errno. */
int fabrics_report_lines_text(const char *heading, char *const *lines, FILE *f);
