#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ship: render the MachineConfig from this build's binaries and check it
# (machineconfig/render.py --check: YAML, ignition-validate, every file
# byte for byte, size), for the worker pool and for another role; then show
# that the check can fail: one corrupted byte in an embedded binary must be
# caught, and so must a second binary or an Ignition link for the CLI (one
# binary ships; the CLI is a script that runs it under the CLI's name).
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
# zopfli once per binary, not once per render (render.py: gzip_bytes)
mkdir gzip-cache
export SWAPGUARD_RENDER_GZIP_CACHE=$tmp/gzip-cache

echo "== role worker"
"$python" "$render" --daemon "$daemon" --strip --check --output worker.yaml

echo "== role infra"
"$python" "$render" --daemon "$daemon" --strip --check --role infra --output infra.yaml >infra.log
grep -q '^  name: 99-infra-nvme-swapguard$' infra.yaml || { echo "FAIL: --role infra: wrong name"; exit 1; }
grep -q '^    machineconfiguration.openshift.io/role: infra$' infra.yaml || { echo "FAIL: --role infra: wrong label"; exit 1; }
echo "ok: --role infra renders 99-infra-nvme-swapguard"

echo "== what is shipped: the configuration's Mode= and UnloadAt= as labels"
grep -q '^    nvme-swapguard.io/mode: enforce$' worker.yaml || { echo "FAIL: default config: no label mode=enforce"; exit 1; }
sed 's/^Mode=enforce$/Mode=observe/' "$(dirname "$render")/../daemon/nvme-swapguard.conf" > observe.conf
grep -q '^Mode=observe$' observe.conf || { echo "FAIL: observe.conf has no Mode=observe line"; exit 1; }
"$python" "$render" --daemon "$daemon" --strip --check --config observe.conf --output observe.yaml >observe.log
grep -q "^render: shipping Mode=observe UnloadAt=auto (from observe.conf)" observe.log ||
        { cat observe.log; echo "FAIL: render did not say it ships Mode=observe"; exit 1; }
grep -q '^    nvme-swapguard.io/mode: observe$' observe.yaml || { echo "FAIL: observe.yaml: no label mode=observe"; exit 1; }
grep -q '^    nvme-swapguard.io/unload-at: auto$' observe.yaml || { echo "FAIL: observe.yaml: no unload-at label"; exit 1; }
grep -q "^ok: label nvme-swapguard.io/mode=observe" observe.log || { echo "FAIL: --check did not check the label"; exit 1; }
echo "ok: Mode=observe printed and labelled"

echo "== bad --config (and other named files) refused, nothing written"
# refuse NAME EXPECTED-MESSAGE RENDER-ARGS...
refuse() {
        local name=$1 want=$2 rc=0; shift 2
        rm -f refused.yaml
        "$python" "$render" --daemon "$daemon" --output refused.yaml "$@" >refused.log 2>&1 || rc=$?
        [ "$rc" -eq 1 ] || { cat refused.log; echo "FAIL: $name: exit $rc, expected 1"; exit 1; }
        grep -qF -- "$want" refused.log || { cat refused.log; echo "FAIL: $name: no \"$want\""; exit 1; }
        [ ! -e refused.yaml ] || { echo "FAIL: $name: a MachineConfig was written all the same"; exit 1; }
        echo "ok: $name: $(grep -F -- "$want" refused.log | head -1)"
}
refuse "mistyped --config" "render: --config obsreve.conf: no such file" --config obsreve.conf
mkdir -p adir
refuse "--config a directory" "render: --config adir: is a directory, not a file" --config adir
printf '[Swap]\nMode=observ\n' > typo.conf
refuse "--config the daemon refuses" 'typo.conf:2: Mode=: "observ" is not enforce or observe' --config typo.conf
refuse "missing --catalog" "render: --catalog nope.catalog: no such file" --catalog nope.catalog
refuse "missing --unit" "render: --unit nope.service.in: no such file" --unit nope.service.in
if [ "$(id -u)" -ne 0 ]; then
        cp observe.conf unreadable.conf && chmod 000 unreadable.conf
        refuse "unreadable --config" "render: --config unreadable.conf: cannot be read: Permission denied" --config unreadable.conf
else
        echo "skip: unreadable --config (running as root, which reads any file)"
fi
release=$(dirname "$render")/build-release.sh
for args in "--config obsreve.conf" "--config adir" "--config"; do
        rc=0; bash "$release" $args >release.log 2>&1 || rc=$?
        [ "$rc" -ne 0 ] || { cat release.log; echo "FAIL: build-release.sh $args: exit 0"; exit 1; }
        grep -q "^build-release: --config" release.log || { cat release.log; echo "FAIL: build-release.sh $args: no clear error"; exit 1; }
        echo "ok: build-release.sh $args: exit $rc: $(head -1 release.log)"
done
bash "$release" --help >help.log
for o in --role --out --config --help "Exit status"; do
        grep -q -- "$o" help.log || { echo "FAIL: build-release.sh --help does not document $o"; exit 1; }
done
"$python" "$render" --help >help.log
for o in $(grep -oE 'add_argument\("--[a-z-]+' "$render" | cut -d'"' -f2); do
        grep -q -- "$o" help.log || { echo "FAIL: render.py --help lacks $o"; exit 1; }
done
if "$python" - "$render" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
calls = re.findall(r'ap\.add_argument\((.*?)\)\n', src, re.S)
bare = [c.split(",")[0] for c in calls if "help=" not in c]
if bare or not calls:
    print("FAIL: render.py options without help:", bare)
    sys.exit(1)
PY
then echo "ok: every option of render.py and build-release.sh is in its --help"; else exit 1; fi

echo "== reproducible"
# (without the cache: zopfli itself must give the same bytes again)
env -u SWAPGUARD_RENDER_GZIP_CACHE "$python" "$render" --daemon "$daemon" --strip --output again.yaml >/dev/null
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
if "$python" "$render" --daemon "$daemon" --strip --verify-only --output worker.yaml >corrupt.log 2>&1; then
        cat corrupt.log; echo "FAIL: a corrupted MachineConfig passed the check"; exit 1
fi
grep "^FAIL" corrupt.log || { cat corrupt.log; echo "FAIL: the check failed for another reason"; exit 1; }
echo "ok: corruption detected"

echo "== one binary: the CLI's path is the wrapper, not a second binary nor an Ignition link"
"$python" "$render" --daemon "$daemon" --strip --check --output one.yaml >one.log 2>&1 || { cat one.log; exit 1; }
for want in "ok: one binary shipped, /usr/local/bin/nvme-swapguard " "ok: /usr/local/bin/nvme-swapguard-kmod runs only exec -a nvme-swapguard-kmod /usr/local/bin/nvme-swapguard" \
        "ok: no Ignition link"; do
        grep -qF "$want" one.log || { cat one.log; echo "FAIL: the check does not say \"$want\""; exit 1; }
done
grep -q '^ *links:' worker.yaml && { echo "FAIL: worker.yaml has an Ignition links section"; exit 1; }
echo "ok: the check says one binary, the wrapper, no link"
# ... and fails on each: the standalone CLI shipped at its path,
if "$python" "$render" --daemon "$daemon" --kmod-wrapper "$kmod" --strip --check --output two.yaml >two.log 2>&1; then
        cat two.log; echo "FAIL: a second binary at the CLI's path passed the check"; exit 1
fi
grep -q "^FAIL: one binary shipped" two.log || { cat two.log; echo "FAIL: a second binary failed for another reason"; exit 1; }
echo "ok: a second binary is caught: $(grep '^FAIL: one binary' two.log)"
# a wrapper that runs something else under the CLI's name,
sed 's|/usr/local/bin/nvme-swapguard "|/usr/local/bin/other "|' "$(dirname "$render")/nvme-swapguard-kmod.sh" > other.sh
if "$python" "$render" --daemon "$daemon" --kmod-wrapper other.sh --strip --check --output other.yaml >other.log 2>&1; then
        cat other.log; echo "FAIL: a wrapper running another program passed the check"; exit 1
fi
grep -q "^FAIL: /usr/local/bin/nvme-swapguard-kmod runs only" other.log || { cat other.log; echo "FAIL: failed for another reason"; exit 1; }
echo "ok: a wrapper running another program is caught"
# and an Ignition link (as butane would write one) added to the rendered config.
"$python" "$render" --daemon "$daemon" --strip --output link.yaml >/dev/null
"$python" - link.yaml <<'PY'
import sys, yaml
p = sys.argv[1]
head = "".join(line for line in open(p) if line.startswith("#"))
mc = yaml.safe_load(open(p))
mc["spec"]["config"]["storage"]["links"] = [{"path": "/usr/local/bin/nvme-swapguard-kmod2",
                                             "target": "/usr/local/bin/nvme-swapguard", "hard": False}]
open(p, "w").write(head + yaml.safe_dump(mc, sort_keys=False, width=1 << 30))
PY
if "$python" "$render" --daemon "$daemon" --strip --verify-only --output link.yaml >link.log 2>&1; then
        cat link.log; echo "FAIL: a MachineConfig with an Ignition link passed the check"; exit 1
fi
grep -q "^FAIL: no Ignition link" link.log || { cat link.log; echo "FAIL: the link failed for another reason"; exit 1; }
echo "ok: an Ignition link is caught"
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
bad = 0
# The admin's drop-ins directory: the MCO applies a directory's policy to the
# files under it, which are the admin's, not ours.
got_files = {f["path"] for f in pol["files"]} - {"/etc/nvme-swapguard/conf.d"}
if not any(f["path"] == "/etc/nvme-swapguard/conf.d" for f in pol["files"]):
    print("FAIL: no policy for /etc/nvme-swapguard/conf.d: an admin's drop-in reboots the pool"); bad = 1
got_units = {u["name"] for u in pol["units"]}
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
echo "== the policy is appended with a JSON patch and removed on roll back, the cluster's own entries kept"
"$python" - "$(dirname "$render")/node-disruption-patch.py" <<'PY'
import copy, json, os, subprocess, sys, yaml
script = sys.argv[1]

def patch_of(obj, *args):
    r = subprocess.run([sys.executable, script, *args], input=json.dumps(obj), capture_output=True, text=True)
    return r.returncode, (json.loads(r.stdout) if r.returncode == 0 else r.stderr)

def apply(obj, patch):
    """RFC 6902 add/remove/test, as the API server applies them; False when a test fails."""
    obj = copy.deepcopy(obj)
    for op in patch:
        *parents, last = op["path"].split("/")[1:]
        node = obj
        for p in parents:
            node = node[int(p)] if isinstance(node, list) else node[p]
        if op["op"] == "test":
            got = node[int(last)] if isinstance(node, list) else node.get(last)
            if got != op["value"]:
                return False
        elif op["op"] == "add":
            if isinstance(node, list):
                node.append(op["value"]) if last == "-" else node.insert(int(last), op["value"])
            else:
                node[last] = op["value"]
        elif op["op"] == "remove":
            del node[int(last) if isinstance(node, list) else last]
    return obj

def fail(msg):
    print("FAIL: " + msg); sys.exit(1)

theirs = {"files": [{"path": "/etc/chrony.conf", "actions": [{"type": "None"}]}],
          "units": [{"name": "chronyd.service", "actions": [{"type": "Reload", "reload": {"serviceName": "chronyd.service"}}]}]}
cluster = {"apiVersion": "operator.openshift.io/v1", "kind": "MachineConfiguration",
           "metadata": {"name": "cluster"}, "spec": {"logLevel": "Normal", "nodeDisruptionPolicy": theirs}}
rc, add = patch_of(cluster, "--add")
if rc: fail(f"--add: {add}")
if any(op["op"] == "add" and op["path"] == "/spec/nodeDisruptionPolicy" for op in add):
    fail("--add replaces the whole policy")
after = apply(cluster, add)
pol = after["spec"]["nodeDisruptionPolicy"]
if pol["files"][0] != theirs["files"][0] or pol["units"][0] != theirs["units"][0]:
    fail("--add lost the cluster's own entries")
paths = [f["path"] for f in pol["files"]]
if "/etc/nvme-swapguard/nvme-swapguard.conf" not in paths or "/etc/nvme-swapguard/conf.d" not in paths:
    fail(f"--add did not append ours: {paths}")
print(f"ok: --add appends {len(pol['files']) - 1} file and {len(pol['units']) - 1} unit entries after the cluster's own")
rc, again = patch_of(after, "--add")
if rc or again != []: fail(f"--add twice adds again: {again}")
print("ok: a second --add is empty")
rc, rm = patch_of(after, "--remove")
if rc: fail(f"--remove: {rm}")
if apply(after, rm) != cluster: fail("--remove does not give back the cluster's policy as it was")
print("ok: --remove leaves exactly the cluster's own entries")
moved = copy.deepcopy(after)
moved["spec"]["nodeDisruptionPolicy"]["files"].insert(0, {"path": "/etc/other", "actions": [{"type": "None"}]})
if apply(moved, rm) is not False: fail("a --remove patch read before someone's change still applies")
print("ok: a stale --remove patch fails its test operations")
bare = {"apiVersion": "operator.openshift.io/v1", "kind": "MachineConfiguration", "metadata": {"name": "cluster"}, "spec": {}}
rc, add = patch_of(bare, "--add")
want_units = len(yaml.safe_load(open(os.path.join(os.path.dirname(script), "node-disruption-policy.yaml")))
                 ["spec"]["nodeDisruptionPolicy"]["units"])
if rc or len(apply(bare, add)["spec"]["nodeDisruptionPolicy"]["units"]) != want_units: fail(f"--add on no policy: {add}")
conflict = copy.deepcopy(cluster)
conflict["spec"]["nodeDisruptionPolicy"]["files"].append(
    {"path": "/etc/nvme-swapguard/nvme-swapguard.conf", "actions": [{"type": "Reboot"}]})
rc, err = patch_of(conflict, "--add")
if rc != 1 or "not ours to replace" not in err: fail(f"a conflicting entry: exit {rc}: {err}")
print("ok: someone else's policy for our file is refused, not replaced")
PY
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
