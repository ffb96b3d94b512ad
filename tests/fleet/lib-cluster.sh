# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# A cluster for the `oc` stand-in (tests/fleet/oc), built from what the
# daemon wrote (make-documents.sh). Source it, set $cluster and $docs, then:
#   cluster_node NAME BOOT_ID ROLE [LABEL=VALUE...]   a Node as `oc get node -o json` has it
#   cluster_serve NAME CASE   the node serves CASE's status.json (under its /var/log) and journal

cluster_node() {
  mkdir -p "$cluster/nodes/$1"
  python3 - "$cluster/nodes/$1/node.json" "$@" <<'PY'
import json, sys
path, name, boot, role, *extra = sys.argv[1:]
labels = {"kubernetes.io/hostname": name, f"node-role.kubernetes.io/{role}": ""}
labels.update(dict(e.split("=", 1) for e in extra))
n = sum(map(ord, name)) % 200 + 10
json.dump({"apiVersion": "v1", "kind": "Node",
           "metadata": {"name": name, "labels": labels},
           "status": {"addresses": [{"type": "InternalIP", "address": f"10.0.0.{n}"}],
                      "nodeInfo": {"bootID": boot, "kernelVersion": "5.14.0-427.el9_4.x86_64"}}},
          open(path, "w"), indent=2)
PY
}

cluster_serve() {
  mkdir -p "$cluster/nodes/$1/var/log/nvme-swapguard"
  cp "$docs/$2/status.json" "$cluster/nodes/$1/var/log/nvme-swapguard/status.json"
  cp "$docs/$2/journal.json" "$cluster/nodes/$1/journal.json"
}
