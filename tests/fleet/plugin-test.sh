#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The oc plugin (plugin/kubectl-swapguard) against the `oc` stand-in
# (tests/fleet/oc) serving status documents and journals that the REAL
# daemon wrote: make-documents.sh runs nvme-swapguard on fake nodes first
# (swapped, blocked, restored, failed, idle). Around them, the cases an admin
# meets in a pool: a document from an earlier boot (stale), a node without the
# daemon, an unreachable node, and a node of another role.
# Env (set by meson): SWAPGUARD_DAEMON FAKE_KERNEL_SO FAKE_NODE SWAPGUARD_VERSION
# FLEET_DOCUMENTS (where the documents are produced: kept in the build dir).
set -uo pipefail

here=$(cd "${BASH_SOURCE[0]%/*}" && pwd)
src=$(cd "$here/../.." && pwd)
plugin=$src/plugin/kubectl-swapguard
command -v python3 >/dev/null || { echo "SKIP: python3 is needed (the plugin is Python 3)"; exit 77; }
docs=${FLEET_DOCUMENTS:-}
[ -n "$docs" ] || { echo "SKIP: FLEET_DOCUMENTS not set (run through meson test)"; exit 77; }

rm -rf "$docs"
"$here/make-documents.sh" "$docs"; rc=$?
[ $rc -eq 77 ] && { echo "SKIP: no status documents from the daemon (the reason is above)"; exit 77; }
[ $rc -eq 0 ] || { echo "FAIL: the daemon did not produce the documents (exit $rc)"; exit 1; }

tmp=$(mktemp -d /tmp/sg-fleet-XXXXXX)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
cluster=$tmp/cluster
export OC_STANDIN_CLUSTER=$cluster OC_STANDIN_LOG=$tmp/oc.log PATH=$here:$PATH
export SWAPGUARD_CATALOG=$src/daemon/catalog/nvme-swapguard.catalog
failures=0 checks=0
fail() { echo "FAIL [$case]: $*"; failures=$((failures + 1)); }
ok() { checks=$((checks + 1)); }

. "$here/lib-cluster.sh"
node() { cluster_node "$@"; }
serve() { cluster_serve "$@"; }

i=0
for c in swapped blocked restored failed idle; do
  extra=(); [ $c = swapped ] || [ $c = idle ] && extra=(gpu=true)
  node worker-$i "$(cat "$docs/$c/boot_id")" worker "${extra[@]}"; serve worker-$i $c
  i=$((i + 1))
done
# rebooted since its daemon last wrote: the node's boot id is a new one
node worker-5 "$(cat /proc/sys/kernel/random/uuid)" worker swapguard-test=stale; serve worker-5 swapped
node worker-6 "$(cat /proc/sys/kernel/random/uuid)" worker                       # no daemon
node worker-7 "$(cat "$docs/swapped/boot_id")" worker; serve worker-7 swapped; touch "$cluster/nodes/worker-7/unreachable"
node master-0 "$(cat /proc/sys/kernel/random/uuid)" master                       # other role, no daemon

run() { out=$("$plugin" "$@" 2>"$tmp/err"); rc=$?; err=$(cat "$tmp/err"); }
expect_rc() { [ "$rc" -eq "$1" ] && ok || fail "exit $rc, expected $1; stdout: $out; stderr: $err"; }
expect_out() { grep -qE -- "$1" <<<"$out" && ok || fail "output lacks /$1/: $out"; }
expect_no_out() { grep -qE -- "$1" <<<"$out" && fail "output has /$1/: $out" || ok; }
# row NODE COLUMN-REGEX: the node's line in the table
row() { grep -E "^$1 " <<<"$out" | grep -qE -- "$2" && ok || fail "row $1 lacks /$2/: $(grep -E "^$1 " <<<"$out")"; }
oc_asked() { grep -qF -- "$1" "$OC_STANDIN_LOG" && ok || fail "oc never got $1: $(cat "$OC_STANDIN_LOG")"; }

case=role-worker
: > "$OC_STANDIN_LOG"
run status --role worker
expect_rc 1   # blocked and failed nodes
for n in 0 1 2 3 4 5 6 7; do
  [ "$(grep -cE "^worker-$n " <<<"$out")" = 1 ] && ok || fail "worker-$n not shown exactly once"
done
expect_no_out "^master-0"
row worker-0 "^worker-0 +swapped +[0-9]+[smhd] +nvidia +yes \\(v1\\) +-$"
row worker-1 "^worker-1 +blocked .* in-tree +no +nvme0n1p1 is mounted on /var/lib/data"
row worker-2 "^worker-2 +restored .* in-tree +no +.*exited"
row worker-3 "^worker-3 +failed .* in-tree +no +Unloading nvme failed"
row worker-4 "^worker-4 +idle .* in-tree +no"
row worker-5 "^worker-5 +stale +- +- +- +document from an earlier boot \(written 20[0-9-]+T.*said swapped\)"
row worker-6 "^worker-6 +no-daemon .*no /var/log/nvme-swapguard/status.json"
row worker-7 "^worker-7 +unreachable .*error trying to reach service: dial tcp 10\.0\.0\.[0-9]+:10250"
expect_out "^8 nodes: "
expect_out "Blocked or failed: worker-1, worker-3 "
expect_out "Not reporting a current status: worker-5, worker-6, worker-7"
oc_asked '["get", "nodes", "-o", "json", "-l", "node-role.kubernetes.io/worker"]'
# the documents of all eight in one call, by the selector the user gave (issue 29)
oc_asked '["adm", "node-logs", "--role", "worker", "--path=nvme-swapguard/status.json"]'
[ "$(wc -l < "$OC_STANDIN_LOG")" = 2 ] && ok || fail "expected 2 oc calls, got: $(cat "$OC_STANDIN_LOG")"

case=selector-all-good
: > "$OC_STANDIN_LOG"
run status -l gpu=true
expect_rc 0
expect_out "^2 nodes: 1 idle, 1 swapped$"
oc_asked '["get", "nodes", "-o", "json", "-l", "gpu=true"]'

case=stale-only
run status -l swapguard-test=stale
expect_rc 3
case=failed-only
run status worker-3
expect_rc 1
expect_out "^1 node: 1 failed$"
case=blocked-only
run status worker-1
expect_rc 1
case=unreachable-only
run status worker-7
expect_rc 3

case=no-boot-id
node other-0 "" gpu; serve other-0 idle
run status other-0
expect_rc 0
row other-0 "^other-0 +idle .*boot not checked \(no boot id from the node\)$"

case=json
run status --role worker -o json
expect_rc 1
python3 - "$out" "$docs/swapped/status.json" "${SWAPGUARD_VERSION:-}" <<'PY' && ok || fail "JSON output: $out"
import json, sys
o, doc = json.loads(sys.argv[1]), json.load(open(sys.argv[2]))
by = {n["node"]: n for n in o["nodes"]}
assert len(o["nodes"]) == 8, len(o["nodes"])
assert o["exit_code"] == 1
assert [by[f"worker-{i}"]["report"] for i in range(8)] == \
    ["current"] * 5 + ["stale", "no-daemon", "unreachable"], [n["report"] for n in o["nodes"]]
assert [by[f"worker-{i}"]["state"] for i in range(5)] == ["swapped", "blocked", "restored", "failed", "idle"]
assert by["worker-0"]["document"] == doc, "the daemon's document, unchanged"
assert by["worker-6"]["document"] is None and by["worker-7"]["error"]
assert o["summary"] == {"swapped": 1, "blocked": 1, "restored": 1, "failed": 1, "idle": 1,
                        "stale": 1, "no-daemon": 1, "unreachable": 1}, o["summary"]
if sys.argv[3]:
    assert doc["daemon"]["version"] == sys.argv[3], doc["daemon"]
PY

case=wide
run status --role worker -o wide
expect_rc 1
expect_out "^NODE +STATE +SINCE +BUILD +GDS-HOOKS +DRIVER-POD +VERSION +WRITTEN +BOOT +BLOCKER/PIN/DETAIL$"
row worker-0 "mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p +${SWAPGUARD_VERSION:-[0-9.]+} +20[0-9-]+T[0-9:]+Z +$(head -c8 "$docs/swapped/boot_id")"

case=usage
run status --role worker -l gpu=true
expect_rc 2   # usage, not "blocked"
run status --output yaml
expect_rc 2

case=no-cluster
OC_STANDIN_CLUSTER=$tmp/none run status --role worker
expect_rc 4
grep -q "cannot list the nodes" <<<"$err" && ok || fail "stderr: $err"

case=logs
: > "$OC_STANDIN_LOG"
run logs worker-1
expect_rc 0
oc_asked '["adm", "node-logs", "worker-1", "-u", "nvme-swapguard", "-o", "json"]'
expect_out "warning +Blocked: not unloading the in-tree NVMe stack: nvme0n1p1 is mounted on /var/lib/data"
expect_out "^   \| NVMe stack swap blocked: nvme0n1p1 is in use$"
expect_out "^   \|.* nvme0n1p1, mount point /var/lib/data"
# the catalog's comment lines are not part of any entry (journalctl skips them)
expect_no_out "^   \| # "
run logs worker-0
expect_out "notice +Swapped \(loaded by nvme-swapguard from the driver container\): module nvme is the nvidia build, GDS hooks present"
# installed alone (no catalog next to it, none named): entries, and a note saying why no explanations
mkdir -p "$tmp/bin" && cp "$plugin" "$tmp/bin/"
out=$(SWAPGUARD_CATALOG= "$tmp/bin/kubectl-swapguard" logs worker-1 2>"$tmp/err"); err=$(cat "$tmp/err")
grep -q "no journal catalog found" <<<"$err" && ok || fail "no note about the missing catalog: $err"
expect_out "Blocked: not unloading"
expect_no_out "^   \|"
run logs worker-7
expect_rc 1
grep -q "error: error trying to reach service" <<<"$err" && ok || fail "stderr: $err"

# --- a rollout (Mode=, issue 23): a pool observing, then one node enforcing ---
case=observe-pool
for n in 0 1 2; do node pool-$n "$(cat "$docs/observe-swap/boot_id")" worker pool=observe; serve pool-$n observe-swap; done
node pool-3 "$(cat "$docs/observe-blocked/boot_id")" worker pool=observe; serve pool-3 observe-blocked
run status -l pool=observe
expect_rc 1   # the blocked node: what enforce would leave blocked
expect_out "^NODE +MODE +STATE +SINCE +BUILD +GDS-HOOKS +BLOCKER/PIN/DETAIL$"
row pool-0 "^pool-0 +observe +would-swap +[0-9]+[smhd] +in-tree +no +would load nvidia build \(nvme_core nvme\) from /proc/[0-9]+/root/lib/modules/"
row pool-3 "^pool-3 +observe +blocked .* in-tree +no +nvme0n1p1 is mounted on /var/lib/containers"
expect_out "^4 nodes: 3 would-swap, 1 blocked$"
expect_out "^4 nodes observing: 3 would swap, 1 blocked: pool-3 \(nvme0n1p1 is mounted on /var/lib/containers \(xfs\)\)$"
run status -l pool=observe -o json
python3 - "$out" <<'PY' && ok || fail "JSON output: $out"
import json, sys
o = json.loads(sys.argv[1])
by = {n["node"]: n for n in o["nodes"]}
assert [by[f"pool-{i}"]["mode"] for i in range(4)] == ["observe"] * 4
assert by["pool-0"]["outlook"] == "would swap" and by["pool-3"]["outlook"] == "blocked"
assert by["pool-0"]["would"].startswith("would load nvidia build"), by["pool-0"]["would"]
assert by["pool-3"]["would"].startswith("would refuse: nvme0n1p1 is mounted on /var/lib/containers"), by["pool-3"]
assert o["observe"]["nodes"] == 4 and o["observe"]["outlook"] == {"would swap": 3, "blocked": 1}, o["observe"]
assert [b["node"] for b in o["observe"]["blocked"]] == ["pool-3"]
PY
# the same node's second phase: Mode=enforce after observe, swapped
serve pool-1 observe-enforce
run status -l pool=observe
row pool-1 "^pool-1 +enforce +swapped +[0-9]+[smhd] +nvidia +yes \(v1\)"
expect_out "^3 nodes observing: 2 would swap, 1 blocked: pool-3 "
run logs pool-1
expect_out "notice +Observe: would unload the in-tree NVMe stack \(nvme nvme_core\) for driver container 3f1c2a9b8e7d"
expect_out "^   \| Observe: would unload the NVMe stack \(nvme nvme_core\)$"
expect_out "notice +Observe: would load nvme_core nvme from the driver container's tree"
expect_out "notice +Mode=enforce \(was observe\): acting from the current state"
expect_out "notice +Swapped \(loaded by nvme-swapguard from the driver container\)"
# An enforcing fleet's table has no MODE column (the existing cases above hold that).
run status -l gpu=true
expect_no_out "MODE"

echo "fleet plugin: $checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
