#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Status documents written by the REAL daemon, for the plugin's tests: the
# nvme-swapguard binary run against fake nodes (tests/fakeroot: the fake node
# builder and the fake kernel shim, as tests/daemon/daemon-fakeroot.sh does),
# one node per outcome an admin will meet:
#
#   swapped    the daemon loaded the build from the driver container
#   blocked    a namespace is mounted: nothing touched
#   restored   the driver container exited before it was ready
#   failed     the in-tree stack could not be unloaded (delete_module EPERM)
#   idle       no driver container
# and the phases of a rollout (Mode=), same driver container:
#   observe-swap       Mode=observe, through its ready file: would swap
#   observe-enforce    the same node restarted with Mode=enforce: swapped
#                      (its journal holds both phases)
#   observe-blocked    Mode=observe, container storage on a namespace
#
# For each, OUT/<case>/ receives what the node would serve: status.json
# (copied from <root>/var/log/nvme-swapguard/), boot_id (the fake node's,
# which kubelet would report as status.nodeInfo.bootID) and journal.json:
# the daemon's own structured output of the run (--log-target stderr: the
# message and the same MESSAGE_ID/SWAPGUARD_* fields it sends to journald),
# timestamped when written, in the shape of `journalctl -o json`.
#
# Usage: make-documents.sh OUT      Env: SWAPGUARD_DAEMON FAKE_KERNEL_SO FAKE_NODE
set -uo pipefail
. "$(dirname "$0")/../fakeroot/lib-fake-node.sh"

out=${1:?usage: make-documents.sh OUT}
for v in SWAPGUARD_DAEMON FAKE_KERNEL_SO FAKE_NODE; do
  if [ -z "${!v:-}" ] || [ ! -e "${!v}" ]; then
    echo "make-documents: $v is not set or missing (run through meson test)" >&2; exit 77
  fi
done

tmp=$(mktemp -d /tmp/sg-fleet-docs-XXXXXX)
daemon_pid= container_pid=
cleanup() {
  [ -n "$daemon_pid" ] && kill -9 "$daemon_pid" 2>/dev/null
  [ -n "$container_pid" ] && kill -9 "$container_pid" 2>/dev/null
  wait 2>/dev/null
  [ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
rel=6.1.0-fake-amd64
ID=3f1c2a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170615e4d3
failures=0

fail() { echo "make-documents [$case]: $*" >&2; failures=$((failures + 1)); }
fn() { "$FAKE_NODE" "$root" "$@" || fail "fake-node $*"; }
doc() { echo "$root/var/log/nvme-swapguard/status.json"; }
# (grep, not a JSON parser: polled ten times a second on a busy machine; the
# document's first member is the state, as json-c writes it: '  "state":"<name>",')
doc_state() { grep -m1 -o '^  "state":"[a-z-]*"' "$(doc)" 2>/dev/null | cut -d'"' -f4 | grep . || echo none; }

# The document is written with the state file: wait on the document itself.
wait_doc_state() {
  local want=$1 i
  for i in $(seq 1 100); do
    [ "$(doc_state)" = "$want" ] && return 0
    sleep 0.1
  done
  fail "status document says $(doc_state), expected $want; daemon output:"
  tail -15 "$tmp/daemon.log" >&2
  return 1
}

new_node() {
  root=$tmp/root-$case
  rm -f "$tmp/daemon.log" "$tmp/fault.script"
  : > "$tmp/fault.script"
  fake_node_in_tree
  mkdir -p "$root/var/log" "$root/proc/sys/kernel/random"
  # each node its own boot: what kubelet reports as status.nodeInfo.bootID
  cat /proc/sys/kernel/random/uuid > "$root/proc/sys/kernel/random/boot_id"
}

start_container() {
  sleep 600 &
  container_pid=$!
  local croot=/proc/$container_pid/root/lib/modules/$rel
  fake_node_nvidia_build $croot
  # last: the store entry (config.json, pidfile, cgroup, and the privileged
  # container's CapEff + host user namespace that the daemon checks before it
  # takes kernel code from it), written by the fake node like every other suite
  fn container $container_pid $ID
}

stop_container() { kill "$container_pid" 2>/dev/null; wait "$container_pid" 2>/dev/null; container_pid=; }

# Each line of the daemon's output with the time it was written (µs).
stamp() { python3 -u -c '
import sys, time
for line in sys.stdin:
    sys.stdout.write(f"{time.time_ns() // 1000} {line}")
    sys.stdout.flush()'; }

start_daemon() {
  NVME_SWAPGUARD_ROOT=$root FAKE_KERNEL_ROOT=$root FAKE_KERNEL_LOG=$tmp/kernel.log \
    FAKE_KERNEL_SCRIPT=$tmp/fault.script \
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
    LD_PRELOAD=$FAKE_KERNEL_SO "$SWAPGUARD_DAEMON" --root "$root" --log-target stderr \
    > >(stamp >> "$tmp/daemon.log") 2>&1 &
  daemon_pid=$!
}

stop_daemon() {
  kill -TERM "$daemon_pid" 2>/dev/null
  wait "$daemon_pid" || fail "daemon exited $? on SIGTERM"
  daemon_pid=
}

set_mode() { printf '[Swap]\nMode=%s\n' "$1" > "$root/etc/nvme-swapguard/nvme-swapguard.conf"; }

ready() { mkdir -p "$root/run/mellanox/drivers" && touch "$root/run/mellanox/drivers/.driver-ready"; }

# OUT/<case>/: the document, the boot id, the journal.
save() {
  local d=$out/$case
  mkdir -p "$d"
  cp "$(doc)" "$d/status.json" || fail "no status document"
  cp "$root/proc/sys/kernel/random/boot_id" "$d/boot_id"
  sleep 0.2 # the stamper's last lines
  python3 - "$tmp/daemon.log" "$d/journal.json" <<'PY' || fail "journal conversion"
import json, re, sys
# "<usec> nvme-swapguard[<pid>] <level>: <message>[ MESSAGE_ID=... KEY=value ...]"
line_re = re.compile(r"^(\d+) nvme-swapguard\[(\d+)\] (\w+): (.*)$")
levels = ["emerg", "alert", "crit", "error", "warning", "notice", "info", "debug"]
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as o:
    for line in f:
        m = line_re.match(line.rstrip("\n"))
        if not m:
            continue
        usec, pid, level, rest = m.groups()
        entry = {"__REALTIME_TIMESTAMP": usec, "_PID": pid, "SYSLOG_IDENTIFIER": "nvme-swapguard",
                 "_SYSTEMD_UNIT": "nvme-swapguard.service",
                 "PRIORITY": str(levels.index(level) if level in levels else 6)}
        # fields start at the first " MESSAGE_ID=" (report_event puts it first)
        head, sep, fields = rest.partition(" MESSAGE_ID=")
        entry["MESSAGE"] = head
        if sep:
            for kv in re.split(r" (?=[A-Z][A-Z0-9_]*=)", "MESSAGE_ID=" + fields):
                k, _, v = kv.partition("=")
                entry[k] = v
        o.write(json.dumps(entry) + "\n")
PY
}

mkdir -p "$out"

case=swapped
new_node; start_daemon
# A daemon that writes the state file but no document cannot feed the test:
# say so (exit 77) rather than fail on each case.
for i in $(seq 1 100); do [ -e "$root/run/nvme-swapguard/state.json" ] && break; sleep 0.1; done
sleep 0.5
if [ -e "$root/run/nvme-swapguard/state.json" ] && [ ! -e "$(doc)" ]; then
  echo "make-documents: this daemon writes /run/nvme-swapguard/state.json but no /var/log/nvme-swapguard/status.json" >&2
  exit 77
fi
wait_doc_state idle
start_container; wait_doc_state unloaded-waiting-driver
ready; wait_doc_state swapped
save; stop_daemon; stop_container

case=blocked
new_node; fn mount nvme0n1p1 /var/lib/data xfs
start_daemon; start_container; wait_doc_state blocked
save; stop_daemon; stop_container

case=restored
new_node; start_daemon; start_container; wait_doc_state unloaded-waiting-driver
stop_container; wait_doc_state restored
save; stop_daemon

case=failed
new_node; echo "delete_module nvme EPERM" > "$tmp/fault.script"
start_daemon; wait_doc_state idle; start_container; wait_doc_state failed
save; kill -9 "$daemon_pid"; wait "$daemon_pid" 2>/dev/null; daemon_pid=; stop_container

case=idle
new_node; start_daemon; wait_doc_state idle
save; stop_daemon

case=observe-swap
new_node; set_mode observe; start_daemon; wait_doc_state idle
start_container; wait_doc_state would-unload
ready; wait_doc_state would-swap
save; stop_daemon
# the MachineConfig changed the file and restarted the unit
case=observe-enforce
set_mode enforce; start_daemon; wait_doc_state swapped
save; stop_daemon; stop_container

case=observe-blocked
new_node; fn mount nvme0n1p1 /var/lib/containers xfs; set_mode observe
start_daemon; start_container; wait_doc_state blocked
save; stop_daemon; stop_container

[ "$failures" -eq 0 ] || { echo "make-documents: $failures failure(s)" >&2; exit 1; }
echo "make-documents: 8 nodes' documents in $out"
