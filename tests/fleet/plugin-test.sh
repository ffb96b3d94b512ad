#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The oc plugin (plugin/kubectl-swapguard) against the `oc` stand-in
# (tests/fleet/oc) serving status documents and journals that the REAL
# daemon wrote: make-documents.sh runs nvme-swapguard on fake nodes first
# (swapped, blocked, restored, failed, idle). Around them, the cases an admin
# meets in a pool: a document from an earlier boot (stale), a node without the
# daemon, an unreachable node, and a node of another role.
# Env (set by meson): SWAPGUARD_DAEMON FAKE_KERNEL_SO FAKE_NODE SWAPGUARD_VERSION
# FLEET_DOCUMENTS (where the documents are produced: kept in the build dir)
# SWAPGUARD_PLUGIN (the packed plugin, build/plugin/kubectl-swapguard).
set -uo pipefail

here=$(cd "${BASH_SOURCE[0]%/*}" && pwd)
src=$(cd "$here/../.." && pwd)
# the installed form (one file, packed by meson); the checkout's launcher without meson
plugin=${SWAPGUARD_PLUGIN:-$src/plugin/kubectl-swapguard}
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
export OC_STANDIN_CLUSTER=$cluster OC_STANDIN_LOG=$tmp/oc.log OC_STANDIN_PIDS=$tmp/oc.pids PATH=$here:$PATH
export OC_STANDIN_ALL_LOG=$tmp/oc-all.log
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
# the documents of all eight in one call, by the selector the user gave
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

# --- a rollout (Mode=): a pool observing, then one node enforcing ---
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

# --- many nodes in one oc adm node-logs: split by oc's prefix ---
node_logs_calls() { grep -c '^\["adm", "node-logs"' "$OC_STANDIN_LOG"; }

case=names-one-call
: > "$OC_STANDIN_LOG"
run status worker-0 worker-6 worker-7 worker-1
expect_rc 1
oc_asked '["adm", "node-logs", "worker-0", "worker-6", "worker-7", "worker-1", "--path=nvme-swapguard/status.json"]'
[ "$(node_logs_calls)" = 1 ] && ok || fail "expected one node-logs call: $(cat "$OC_STANDIN_LOG")"
row worker-0 "^worker-0 +swapped +[0-9]+[smhd] +nvidia +yes \\(v1\\) +-$"
row worker-6 "^worker-6 +no-daemon .*no /var/log/nvme-swapguard/status.json"
row worker-7 "^worker-7 +unreachable .*error trying to reach service: dial tcp 10\.0\.0\.[0-9]+:10250"
row worker-1 "^worker-1 +blocked .*nvme0n1p1 is mounted on /var/lib/data"

# a name that begins another's: gpu-1 has no daemon, gpu-10 and gpu-1.b answer;
# gpu-1 must not take their lines
case=prefix-collision
node gpu-1 "$(cat /proc/sys/kernel/random/uuid)" gpu collide=yes
node gpu-10 "$(cat "$docs/swapped/boot_id")" gpu collide=yes; serve gpu-10 swapped
node gpu-1.b "$(cat "$docs/idle/boot_id")" gpu collide=yes; serve gpu-1.b idle
for how in "gpu-1 gpu-10 gpu-1.b" "-l collide=yes"; do
  # shellcheck disable=SC2086
  run status $how
  expect_rc 3
  row gpu-1 "^gpu-1 +no-daemon "
  row gpu-10 "^gpu-10 +swapped +[0-9]+[smhd] +nvidia"
  row gpu-1.b "^gpu-1.b +idle "
done

# a document that breaks off mid-stream (the stand-in's "cut"), between a node
# that answers and one without the daemon: oc prints the cut node's error and
# the 404, in order; each goes to its node
case=cut-document
node cut-0 "$(cat "$docs/idle/boot_id")" worker cut=yes; serve cut-0 idle
node cut-1 "$(cat "$docs/swapped/boot_id")" worker cut=yes; serve cut-1 swapped; echo 300 > "$cluster/nodes/cut-1/cut"
node cut-2 "$(cat /proc/sys/kernel/random/uuid)" worker cut=yes
node cut-3 "$(cat "$docs/idle/boot_id")" worker cut=yes; serve cut-3 idle
run status -l cut=yes
expect_rc 3
row cut-0 "^cut-0 +idle "
row cut-1 "^cut-1 +invalid .*is not a status document: its answer broke off: unexpected EOF"
row cut-2 "^cut-2 +no-daemon "
row cut-3 "^cut-3 +idle "
expect_out "^4 nodes: 2 idle, 1 invalid, 1 no-daemon$"

# an empty document and a node without the daemon: one error for two silent
# nodes; neither may be called no-daemon on a guess
case=unattributable
node quiet-0 "$(cat "$docs/idle/boot_id")" worker quiet=yes; serve quiet-0 idle
: > "$cluster/nodes/quiet-0/var/log/nvme-swapguard/status.json"
node quiet-1 "$(cat /proc/sys/kernel/random/uuid)" worker quiet=yes
node quiet-2 "$(cat "$docs/idle/boot_id")" worker quiet=yes; serve quiet-2 idle
run status -l quiet=yes -o json
expect_rc 3
python3 - "$out" <<'PY' && ok || fail "JSON output: $out"
import json, sys
by = {n["node"]: n for n in json.loads(sys.argv[1])["nodes"]}
for q in ("quiet-0", "quiet-1"):
    assert by[q]["report"] == "unreachable", by[q]
    assert "oc gave 1 error(s) for 2 nodes without one: the server could not find" in by[q]["error"], by[q]
assert by["quiet-2"]["report"] == "current", by["quiet-2"]
PY

serve quiet-0 idle   # the document back: every error below can be told to its node

# every node by name, three names a call (the last may be one name, unprefixed):
# the same reports as the one call by selector
case=batches
run status -l '!swapguard-none' -o json; one=$out
: > "$OC_STANDIN_LOG"
out=$(SWAPGUARD_BATCH_NODES=3 "$plugin" status -o json 2>"$tmp/err"); rc=$?
total=$(ls "$cluster/nodes" | wc -l)
[ "$(node_logs_calls)" = $(( (total + 2) / 3 )) ] && ok || fail "expected $(( (total + 2) / 3 )) node-logs calls for $total nodes: $(cat "$OC_STANDIN_LOG")"
python3 - "$one" "$out" "$total" <<'PY' && ok || fail "batched reports differ from the one-call ones"
import json, sys
a, b = (json.loads(x) for x in sys.argv[1:3])
assert len(a["nodes"]) == len(b["nodes"]) == int(sys.argv[3]), (len(a["nodes"]), len(b["nodes"]))
for x, y in zip(a["nodes"], b["nodes"]):
    assert x == y, (x, y)
PY

# a node whose kubelet never answers: oc waits; past the timeout the plugin
# kills it and keeps the whole documents oc had written (only full 16 KiB
# blocks get out of oc's buffer: the nodes after the first ~6 are lost)
case=hang
hang=()
for n in 0 1 2 3 4 5 6 7 8; do node hang-$n "$(cat "$docs/swapped/boot_id")" worker; serve hang-$n swapped; hang+=(hang-$n); done
touch "$cluster/nodes/hang-8/hang"
node hang-9 "$(cat "$docs/swapped/boot_id")" worker; serve hang-9 swapped; hang+=(hang-9)
: > "$OC_STANDIN_PIDS"
t0=$(date +%s)
out=$(SWAPGUARD_OC_TIMEOUT=3 "$plugin" status "${hang[@]}" 2>"$tmp/err"); rc=$?
expect_rc 3
# The stand-in's hung call never ends: only a stop far past the 3 s
# (120 s, on a busy machine the other nine calls take long too) is a hang.
took=$(( $(date +%s) - t0 ))
echo "#   the status with one hung call took $took s"
[ $took -lt 120 ] && ok || fail "the hung call was not stopped ($took s)"
row hang-0 "^hang-0 +swapped "
row hang-8 "^hang-8 +unreachable .*no answer within 3 s \(oc adm node-logs asks its 10 nodes one after another\)"
row hang-9 "^hang-9 +unreachable .*no answer within 3 s"
n_ok=$(grep -cE "^hang-[0-9] +swapped" <<<"$out")
[ "$n_ok" -ge 4 ] && [ "$n_ok" -le 7 ] && ok || fail "$n_ok nodes' documents kept, expected those in oc's first 16 KiB: $out"
# the stand-in was killed, not left sleeping
sleep 0.2
for pid in $(cat "$OC_STANDIN_PIDS"); do kill -0 "$pid" 2>/dev/null && fail "oc $pid still running"; done; ok

# --- status -w: a line per node that changed, the summary kept current ---
case=watch
node watch-0 "$(cat "$docs/observe-blocked/boot_id")" worker watch=yes; serve watch-0 observe-blocked
node watch-1 "$(cat "$docs/observe-swap/boot_id")" worker watch=yes; serve watch-1 observe-swap
node watch-2 "$(cat /proc/sys/kernel/random/uuid)" worker watch=yes
: > "$OC_STANDIN_LOG"
SWAPGUARD_WATCH_POLLS=4 "$plugin" status -w --interval 1 -l watch=yes > "$tmp/watch.out" 2>"$tmp/err" &
wpid=$!
for i in $(seq 1 600); do grep -q "^3 nodes: " "$tmp/watch.out" && break; sleep 0.1; done
# the node's daemon, restarted with Mode=enforce, swapped (same boot)
serve watch-1 observe-enforce
wait $wpid; rc=$?
out=$(cat "$tmp/watch.out"); err=$(cat "$tmp/err")
expect_rc 1   # watch-0 is blocked at the last poll
[ "$(node_logs_calls)" = 4 ] && ok || fail "expected 4 polls: $(cat "$OC_STANDIN_LOG")"
[ "$(grep -c "^NODE " <<<"$out")" = 1 ] && ok || fail "the header more than once: $out"
[ "$(grep -cE "^watch-1 " <<<"$out")" = 2 ] && ok || fail "watch-1 not shown twice (once changed): $out"
[ "$(grep -cE "^watch-[02] " <<<"$out")" = 2 ] && ok || fail "unchanged nodes shown again: $out"
grep -E "^watch-1 " <<<"$out" | tail -1 | grep -qE "^watch-1 +enforce +swapped +[0-9]+[smhd] +nvidia" && ok || fail "watch-1's new line: $out"
expect_out "^3 nodes: 1 blocked, 1 no-daemon, 1 would-swap; 2 observing: 1 would swap, 1 blocked$"
expect_out "^3 nodes: 1 blocked, 1 no-daemon, 1 swapped; 1 observing: 1 blocked$"
[ "$(grep -c "^3 nodes: " <<<"$out")" = 2 ] && ok || fail "the summary repeated without a change: $out"
[ "$(tail -1 <<<"$out")" = "3 nodes: 1 blocked, 1 no-daemon, 1 swapped; 1 observing: 1 blocked" ] && ok || fail "not last: the summary: $out"

# Ctrl-C while a poll waits on oc: exit 130, no traceback, no oc left behind.
# (A script's background job ignores SIGINT; a terminal's Ctrl-C does not: SIG_DFL first.)
case=watch-ctrl-c
: > "$OC_STANDIN_PIDS"
python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
  "$plugin" status -w --interval 1 -l watch=yes > "$tmp/watch.out" 2>"$tmp/err" &
wpid=$!
for i in $(seq 1 600); do grep -q "^3 nodes: " "$tmp/watch.out" && break; sleep 0.1; done
touch "$cluster/nodes/watch-2/hang"   # the next poll's oc waits on it
for i in $(seq 1 600); do [ "$(wc -l < "$OC_STANDIN_PIDS")" -ge 4 ] && break; sleep 0.1; done
sleep 0.5
kill -INT $wpid
wait $wpid; rc=$?
err=$(cat "$tmp/err"); out=$(cat "$tmp/watch.out")
expect_rc 130
grep -q Traceback <<<"$err" && fail "a traceback on Ctrl-C: $err" || ok
sleep 0.2
for pid in $(cat "$OC_STANDIN_PIDS"); do kill -0 "$pid" 2>/dev/null && fail "oc $pid still running after Ctrl-C"; done; ok
rm -f "$cluster/nodes/watch-2/hang"

# on a terminal the summary is one line rewritten in place, with the poll's time
case=watch-tty
if command -v script >/dev/null; then
  out=$(SWAPGUARD_WATCH_POLLS=2 script -qec "$plugin status -w --interval 1 -l watch=yes" /dev/null)
  grep -qF $'\r\033[K3 nodes: ' <<<"$out" && ok || fail "no summary rewritten in place (\\r ESC[K): $(od -c <<<"$out" | tail -5)"
  # (a line longer than the terminal is cut to fit: COLUMNS gives room)
  tty_out=$(COLUMNS=200 SWAPGUARD_WATCH_POLLS=1 script -qec "$plugin status -w -l watch=yes" /dev/null | tr -d '\r')
  grep -qE "^3 nodes: .* \(at [0-9]{2}:[0-9]{2}:[0-9]{2}\)$" <<<"$tty_out" && ok || fail "summary on a terminal: $tty_out"
else
  echo "watch-tty: not checked (no script(1) to give the plugin a terminal)"
fi

case=watch-usage
run status -w -o json
expect_rc 2
run status --interval 5
expect_rc 2
run status -w --interval 0.1
expect_rc 2

# NVMe over Fabrics: a swapped node whose dropped connection did not
# come back says so in its row and in a pool line. The document is the daemon's
# swapped one with the "fabrics_warnings" list the daemon writes (its own
# writing of it is checked in tests/daemon/daemon-fabrics-fakeroot.sh).
case=fabrics-not-back
node fab-0 "$(cat "$docs/swapped/boot_id")" worker fab=yes; serve fab-0 swapped
node fab-1 "$(cat "$docs/swapped/boot_id")" worker fab=yes; serve fab-1 swapped
python3 - "$cluster/nodes/fab-0/var/log/nvme-swapguard/status.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["fabrics_warnings"] = ["nvme1: tcp 192.0.2.5:4420 nqn.2026-12.test:sub: not reconnected: Connection refused"]
json.dump(doc, open(sys.argv[1], "w"))
PY
run status -l fab=yes
expect_rc 0
row fab-0 "NVMe-oF not back: nvme1: tcp 192.0.2.5:4420 .*Connection refused"
grep -E "^fab-1 " <<<"$out" | grep -q "NVMe-oF" && fail "fab-1 has no warning: $out" || ok
expect_out "^NVMe over Fabrics connections not back: fab-0 "
rm -rf "$cluster/nodes/fab-0" "$cluster/nodes/fab-1"

# Node labels (Node Feature Discovery, README "Schedule GDS work"): the
# LABEL column appears when nodes carry the daemon's labels, beside the
# node's own state; a node whose labels disagree with its status document
# is flagged in the row ("!") and in a pool line. The documents are the
# daemon's (its swapped one has nvidia_fs absent: not GDS-ready).
case=node-labels
L=feature.node.kubernetes.io/nvme-swapguard
node lab-0 "$(cat "$docs/swapped/boot_id")" worker lab=yes $L.state=swapped $L.gds-ready=false $L.gds-hooks=v1 $L.mode=enforce
serve lab-0 swapped
node lab-1 "$(cat "$docs/swapped/boot_id")" worker lab=yes $L.state=idle $L.gds-ready=false $L.gds-hooks=none $L.mode=enforce
serve lab-1 swapped
node lab-2 "$(cat "$docs/swapped/boot_id")" worker lab=yes $L.state=swapped $L.gds-ready=true $L.gds-hooks=v1 $L.mode=enforce
serve lab-2 swapped
node lab-3 "$(cat "$docs/idle/boot_id")" worker lab=yes   # no labels (no NFD): not a disagreement
serve lab-3 idle
run status -l lab=yes
expect_rc 0
expect_out "^NODE +STATE +LABEL +SINCE"
row lab-0 "^lab-0 +swapped +swapped +[0-9]"
row lab-1 "^lab-1 +swapped +!idle +[0-9]"
row lab-2 "^lab-2 +swapped +!swapped\+gds +[0-9]"
row lab-3 "^lab-3 +idle +- +- +in-tree"
expect_out "^Node labels disagree with the node's status: lab-1 \(label says idle, the node swapped\), lab-2 \(label says gds-ready=true, the node is not\)$"
run status -l lab=yes -o json
python3 -c '
import json, sys
d = {r["node"]: r for r in json.load(sys.stdin)["nodes"]}
assert d["lab-0"]["labels"] == {"state": "swapped", "gds-ready": "false", "gds-hooks": "v1", "mode": "enforce"}, d["lab-0"]
assert d["lab-0"]["label_disagrees"] is None
assert d["lab-1"]["label_disagrees"] == "label says idle, the node swapped"
assert d["lab-3"]["labels"] == {} and d["lab-3"]["label_disagrees"] is None
' <<<"$out" && ok || fail "JSON labels: $out"
rm -rf "$cluster/nodes/lab-"*
# without labels anywhere the table has no LABEL column (the rows above keep their columns)
run status -l gpu=true
expect_out "^NODE +STATE +SINCE"
expect_no_out "LABEL"

case=version-help
run --version
expect_rc 0
expect_out "^oc swapguard ${SWAPGUARD_VERSION:-[0-9.]+}"
run status --help
expect_rc 0
expect_out "Exit status:"
expect_out "0 +every selected node"
expect_out "4 +the nodes could not be listed"
expect_out "would-swap +Mode=observe"

case=bundle
# Another operator's token in the Node's annotations must not reach the bundle.
python3 - "$cluster/nodes/worker-1/node.json" <<'PY'
import json, sys
n = json.load(open(sys.argv[1]))
n["metadata"]["annotations"] = {"example.com/dhchap": "DHHC-1:00:c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0:"}
json.dump(n, open(sys.argv[1], "w"))
PY
run bundle worker-1 worker-6 -o "$tmp/bundle.tar.gz"
expect_rc 3   # worker-6 has no daemon: its status.json.error says so
tar -tzf "$tmp/bundle.tar.gz" > "$tmp/bundle.list" 2>&1 && ok || fail "no archive: $(cat "$tmp/bundle.list")"
for f in bundle.json worker-1/node.json worker-1/status.json worker-1/journal-nvme-swapguard.json \
         worker-1/journal-nvme-swapguard-fabrics.json worker-6/status.json.error; do
  grep -qx "$f" "$tmp/bundle.list" && ok || fail "bundle lacks $f: $(cat "$tmp/bundle.list")"
done
mkdir -p "$tmp/bundle" && tar -xzf "$tmp/bundle.tar.gz" -C "$tmp/bundle"
cmp -s "$tmp/bundle/worker-1/status.json" "$cluster/nodes/worker-1/var/log/nvme-swapguard/status.json" && ok ||
  fail "the bundle's status.json is not the node's"
grep -q '"annotations"' "$tmp/bundle/worker-1/node.json" && fail "annotations kept in node.json" || ok
grep -q '"worker-1"' "$tmp/bundle/worker-1/node.json" && ok || fail "node.json is not worker-1's"
grep -rq 'DHHC-1' "$tmp/bundle" && fail "a DH-HMAC-CHAP secret in the bundle: $(grep -rl 'DHHC-1' "$tmp/bundle")" || ok
grep -q "not found\|could not find" "$tmp/bundle/worker-6/status.json.error" && ok || fail "worker-6's error: $(cat "$tmp/bundle/worker-6/status.json.error")"

# Every oc call this run made (every command and option above, and logs'
# time options) is covered by the shipped ClusterRole, and it grants nothing
# unused; a role without nodes/proxy is refused.
case=clusterrole
run logs worker-0 --since=-1h --until=now --tail=5 --boot=0
expect_rc 0
out=$(python3 "$here/rbac-coverage.py" "$src/plugin/clusterrole.yaml" "$OC_STANDIN_ALL_LOG" 2>&1); rc=$?
echo "$out" | tail -1
expect_rc 0
expect_out "adm node-logs, get nodes"
sed 's#"nodes/proxy"#"nodes/log"#' "$src/plugin/clusterrole.yaml" > "$tmp/role-no-proxy.yaml"
out=$(python3 "$here/rbac-coverage.py" "$tmp/role-no-proxy.yaml" "$OC_STANDIN_ALL_LOG" 2>&1); rc=$?
expect_rc 1
expect_out "needs get nodes/proxy, which the role does not grant"
sed 's/verbs: \["get", "list"\]/verbs: ["get", "list", "watch"]/' "$src/plugin/clusterrole.yaml" > "$tmp/role-more.yaml"
out=$(python3 "$here/rbac-coverage.py" "$tmp/role-more.yaml" "$OC_STANDIN_ALL_LOG" 2>&1); rc=$?
expect_rc 1
expect_out "grants watch nodes, which no call of the plugin used"

echo "fleet plugin: $checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
