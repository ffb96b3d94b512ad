# SPDX-License-Identifier: Apache-2.0
"""The selected nodes, from one `oc get nodes`: by name, by role or by label
selector, each with the boot id and the addresses its report needs. The
arguments were checked by the command line (cli.check_selection)."""

import collections
import json

from .oc import run_oc


def selector_of(args):
    """oc adm node-logs --role R means the label node-role.kubernetes.io/R exists."""
    if args.role:
        return f"node-role.kubernetes.io/{args.role}"
    return args.selector


class NodesError(Exception):
    """The nodes could not be listed: exit 4 (status), or try again (status -w)."""


# A selected node, from oc get nodes: its addresses name it in oc's errors;
# labels: the node labels the daemon publishes through Node Feature
# Discovery (README "Schedule GDS work"), without their prefix: "state",
# "gds-ready", "gds-hooks", "mode"; {} when it has none.
Node = collections.namedtuple("Node", "name boot_id addresses labels", defaults=({},))
LABEL_PREFIX = "feature.node.kubernetes.io/nvme-swapguard."


def swapguard_labels_of(node):
    labels = node.get("metadata", {}).get("labels") or {}
    return {k[len(LABEL_PREFIX):]: v for k, v in labels.items() if k.startswith(LABEL_PREFIX)}


def list_nodes(args):
    cmd = ["get", "nodes", "-o", "json"]
    cmd += args.nodes
    sel = selector_of(args)
    if sel:
        cmd += ["-l", sel]
    rc, out, err, _ = run_oc(cmd)
    if rc != 0:
        raise NodesError(err + f"kubectl-swapguard: cannot list the nodes (oc {' '.join(cmd)} exited {rc})")
    try:
        obj = json.loads(out)
    except ValueError as e:
        raise NodesError(f"kubectl-swapguard: oc get nodes gave no JSON: {e}")
    items = obj["items"] if "items" in obj else [obj]  # one name: a Node, not a List
    return [Node(n["metadata"]["name"], n.get("status", {}).get("nodeInfo", {}).get("bootID", ""),
                 [a.get("address", "") for a in n.get("status", {}).get("addresses") or [] if a.get("address")],
                 swapguard_labels_of(n))
            for n in items]

