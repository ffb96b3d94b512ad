#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ship: render the MachineConfig from this build's binaries and check it
# (machineconfig/render.py --check: YAML, ignition-validate, every file
# byte for byte, size), for the worker pool and for another role; then show
# that the check can fail: one corrupted byte in an embedded binary must be
# caught.
#   machineconfig-check.sh PYTHON3 RENDER_PY DAEMON KMOD
set -euo pipefail
python=$1 render=$(realpath "$2") daemon=$(realpath -m "$3") kmod=$(realpath -m "$4")

for b in "$daemon" "$kmod"; do
        [ -x "$b" ] || { echo "SKIP: $b is not built (yet): nothing to render"; exit 77; }
done
"$python" -c 'import yaml' 2>/dev/null || { echo "SKIP: PyYAML missing (Debian package python3-yaml)"; exit 77; }
command -v ignition-validate >/dev/null || { echo "SKIP: ignition-validate missing (Debian package ignition)"; exit 77; }
command -v strip >/dev/null || { echo "SKIP: strip missing (Debian package binutils)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

echo "== role worker"
"$python" "$render" --daemon "$daemon" --kmod "$kmod" --strip --check --output worker.yaml

echo "== role infra"
"$python" "$render" --daemon "$daemon" --kmod "$kmod" --strip --check --role infra --output infra.yaml >infra.log
grep -q '^  name: 99-infra-nvme-swapguard$' infra.yaml || { echo "FAIL: --role infra: wrong name"; exit 1; }
grep -q '^    machineconfiguration.openshift.io/role: infra$' infra.yaml || { echo "FAIL: --role infra: wrong label"; exit 1; }
echo "ok: --role infra renders 99-infra-nvme-swapguard"

echo "== reproducible"
"$python" "$render" --daemon "$daemon" --kmod "$kmod" --strip --output again.yaml >/dev/null
cmp worker.yaml again.yaml && echo "ok: rendering twice gives the same bytes"

echo "== the check catches a corrupted binary"
"$python" - worker.yaml <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
i = s.index("source: data:;base64,") + 4000   # inside the daemon's compressed bytes
s = s[:i] + ("A" if s[i] != "A" else "B") + s[i + 1:]
open(p, "w").write(s)
PY
if "$python" "$render" --daemon "$daemon" --kmod "$kmod" --strip --verify-only --output worker.yaml >corrupt.log 2>&1; then
        cat corrupt.log; echo "FAIL: a corrupted MachineConfig passed the check"; exit 1
fi
grep "^FAIL" corrupt.log || { cat corrupt.log; echo "FAIL: the check failed for another reason"; exit 1; }
echo "ok: corruption detected"
echo "== the NodeDisruptionPolicy example covers every file and unit we ship"
"$python" - "$(dirname "$render")" <<'PY'
import os, sys, yaml
d = sys.argv[1]
bu = yaml.safe_load(open(os.path.join(d, "nvme-swapguard.bu")))
ndp = yaml.safe_load(open(os.path.join(d, "node-disruption-policy.yaml")))
assert ndp["apiVersion"] == "operator.openshift.io/v1" and ndp["kind"] == "MachineConfiguration"
assert ndp["metadata"]["name"] == "cluster"
pol = ndp["spec"]["nodeDisruptionPolicy"]
want_files = {f["path"] for f in bu["storage"]["files"]}
want_units = {u["name"] for u in bu["systemd"]["units"]}
got_files = {f["path"] for f in pol["files"]}
got_units = {u["name"] for u in pol["units"]}
bad = 0
for what, want, got in (("file", want_files, got_files), ("unit", want_units, got_units)):
    for x in sorted(want - got):
        print(f"FAIL: {what} {x} has no node disruption policy: a change to it reboots the pool"); bad = 1
    for x in sorted(got - want):
        print(f"FAIL: policy for {what} {x}, which we do not ship"); bad = 1
for e in pol["files"] + pol["units"]:
    for a in e["actions"]:
        if a["type"] in ("Restart", "Reload"):
            key = a["type"].lower()
            if a.get(key, {}).get("serviceName") not in want_units:
                print(f"FAIL: {e}: {a['type']} of a unit we do not ship"); bad = 1
        if a["type"] in ("Reboot", "None") and len(e["actions"]) != 1:
            print(f"FAIL: {e}: {a['type']} must stand alone"); bad = 1
sys.exit(bad)
PY
echo "ok: node-disruption-policy.yaml matches nvme-swapguard.bu"
echo "== the metrics label unit"
if command -v systemd-analyze >/dev/null; then
        cp "$(dirname "$render")/nvme-swapguard-metrics-label.service" "$tmp/"
        out=$(systemd-analyze verify --man=no "$tmp/nvme-swapguard-metrics-label.service" 2>&1) || { echo "$out"; echo "FAIL: verify"; exit 1; }
        [ -z "$out" ] || { echo "$out"; echo "FAIL: verify printed warnings"; exit 1; }
        echo "ok: systemd-analyze verify"
fi
echo "== the monitoring manifests stay out of the MachineConfig (applied with oc)"
if grep -q 'monitoring' <(grep -E '^ *- path:' "$(dirname "$render")/nvme-swapguard.bu"); then
        echo "FAIL: nvme-swapguard.bu carries a monitoring file"; exit 1
fi
echo "ok"
echo "machineconfig-check: passed"
