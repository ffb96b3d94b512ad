/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/* The fabrics topology as JSON for display: what --json and the status
 * document show of a connection (never a secret: the topology holds none).
 * One object per controller:
 *   {"name","transport","traddr","trsvcid","host_traddr","host_iface",
 *    "subsysnqn","hostnqn","hostid","state","ctrl_loss_tmo","reconnect_delay",
 *    "fast_io_fail_tmo","kato","nr_io_queues","nr_write_queues",
 *    "nr_poll_queues","queue_size","hdr_digest","data_digest","tls",
 *    "tls_keyring","tls_configured_key","dhchap_secret","dhchap_ctrl_secret",
 *    "description","namespaces":[{"name","nsid","nguid","uuid","eui"}]}
 * options: a number, "off" (FABRICS_OPT_OFF) or null (FABRICS_OPT_UNSET);
 * dhchap_*: whether a secret is set, never its value. The record's own
 * format is fabrics-record.h. */

#include "nvme/fabrics-topology.h"

struct json_object;

/* A JSON array of the controllers' objects. 0 or -ENOMEM. */
int fabrics_topology_to_json(const FabricsTopology *t, struct json_object **ret);
/* One controller's object. 0 or -ENOMEM. */
int fabrics_controller_to_json(const FabricsController *c, struct json_object **ret);
