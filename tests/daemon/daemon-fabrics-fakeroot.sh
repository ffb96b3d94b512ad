#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# NVMe over Fabrics across the swap, the real daemon on a fake node: the
# in-tree stack with nvme_fabrics + nvme_tcp loaded and one NVMe/TCP
# controller (nvme1) with a DH-HMAC-CHAP secret, laid out as 6.1 shows it
# (fake-node `fabrics`, tests/fakeroot/fake-node-fabrics.h); removing
# nvme_tcp deletes the controller, as the real kernel does. The capture and
# the connect are nvme-swapguard-fabrics.service's: here a stand-in for its
# path unit (start_fabrics_unit, lib-daemon-fakeroot.sh) that answers from a
# script, as unkind as reality can be: a silent unit (the deadline, no
# unload), a connection refused then back on a later try (the retry timer),
# one given up (lost), a connect that hangs while the daemon is stopped (the
# stop does not wait), a start that finds a record (connect on start). Also:
# a container tree without nvme_tcp is no-build with no unload; Mode=observe
# says what it would drop and asks for nothing; the daemon never writes the
# secret anywhere (it never reads it).
set -uo pipefail
. "$(dirname "$0")/lib-daemon-fakeroot.sh"

# A clean stop of the daemon alone (stop_daemon also stops the containers).
stop_daemon_only() {
  kill -TERM "$daemon_pid" 2>/dev/null; wait "$daemon_pid"; local rc=$?
  daemon_pid=
  [ "$rc" -eq 0 ] && ok || fail "daemon exited $rc on SIGTERM"
}

SECRET='DHHC-1:00:c3dhcGd1YXJkLWZhYnJpY3MtdGVzdC1zZWNyZXQtMjc=:'
NQN=nqn.2026-12.io.swapguard:fake-target
node_dirs=(/var/log/nvme-swapguard /dev)

# The stack's fabrics modules, in the host's tree and loaded, and the connection.
fabrics_node() {
  new_node
  rm -f "$tmp/fabrics-unit.log" "$tmp/fabrics.script"
  fn ko /lib/modules/$rel kernel/drivers/nvme/host/nvme-fabrics.ko nvme_fabrics nvme-core -
  fn ko /lib/modules/$rel kernel/drivers/nvme/host/nvme-tcp.ko nvme_tcp nvme-fabrics,nvme-core -
  fn modules-dep /lib/modules/$rel
  fn module nvme_core -1 nvme,nvme_fabrics,nvme_tcp
  fn module nvme_fabrics -1 nvme_tcp
  fn module nvme_tcp 0 -
  fn fabrics 1 tcp 127.0.0.1 4420 "$NQN" 1:-:27270000-0000-4000-8000-00000000f001
  echo "$SECRET" > "$root/sys/class/nvme/nvme1/dhchap_secret"
  export FAKE_KERNEL_SCRIPT=$tmp/kernel.script
  : > "$FAKE_KERNEL_SCRIPT"
}

# NVIDIA's build with (FABRICS_TREE=tcp, the default) or without nvme_tcp.
fake_node_nvidia_build() {
  fn ko "$1" extra/mlnx-nvme/host/nvme-core.ko nvme_core t10-pi - fake_taint=OE
  fn ko "$1" extra/mlnx-nvme/host/nvme.ko nvme nvme-core - fake_taint=OE fake_exports=nvme_v1_register_nvfs_dma_ops
  fn ko "$1" extra/mlnx-nvme/host/nvme-fabrics.ko nvme_fabrics nvme-core - fake_taint=OE
  [ "${FABRICS_TREE:-tcp}" = tcp ] &&
    fn ko "$1" extra/mlnx-nvme/host/nvme-tcp.ko nvme_tcp nvme-fabrics,nvme-core - fake_taint=OE
  fn modules-dep "$1"
}

# No file the daemon writes for people or for itself carries the secret.
expect_no_secret() {
  local f
  for f in "$tmp/daemon.log" "$root/run/nvme-swapguard/state.json" \
    "$root/var/log/nvme-swapguard/status.json" "$root/run/nvme-swapguard/fabrics-request"; do
    [ -e "$f" ] || continue
    grep -qF "${SECRET:10:20}" "$f" && fail "the DH-HMAC-CHAP secret is in $f" || ok
  done
}

# The connection as the unit's answers name it (OUTCOME and more fields).
conn() {
  printf '{"transport": "tcp", "traddr": "127.0.0.1", "trsvcid": "4420", "subsysnqn": "%s", "description": "nvme1: tcp 127.0.0.1:4420 %s", "old_name": "nvme1", "outcome": "%s"%s}' \
    "$NQN" "$NQN" "$1" "${2:-}"
}
unit_runs() { wc -l < "$tmp/fabrics-unit.log" 2>/dev/null || echo 0; }
wait_unit_runs() {
  local deadline=$((SECONDS + ${2:-20}))
  while [ "$SECONDS" -lt "$deadline" ]; do
    [ "$(unit_runs)" -ge "$1" ] && return 0
    sleep 0.1
  done
  return 1
}

# The stand-in running the real CLI's serve-request under the fake kernel:
# the capture (the secret into the 0600 secrets file), the unload, the
# connect through the container's nvme_tcp with the secret (only in what
# goes to the kernel), the record and its secrets gone once it is back.
case_swap_through_the_real_cli() {
fabrics_node
start_fabrics_unit
start_daemon
start_container "$ID" build
wait_state unloaded-waiting-driver || return 1
expect_kernel "delete_module nvme_tcp flags=.* -> 0"
[ "$(stat -c %a "$root/run/nvme-swapguard-secrets/secrets.json" 2>/dev/null)" = 600 ] && ok ||
  fail "secrets file mode $(stat -c %a "$root/run/nvme-swapguard-secrets/secrets.json" 2>&1); unit: $(tail -5 "$tmp/fabrics-unit.log")"
ready
wait_state swapped || return 1
wait_log "connected again after the load as nvme[0-9]+" || fail "not back: $(tail -5 "$tmp/daemon.log"); unit: $(tail -5 "$tmp/fabrics-unit.log")"
expect_kernel "connect .*nqn=$NQN.*dhchap_secret=${SECRET}.* -> 0"
[ -e "$root/run/nvme-swapguard-fabrics/record.json" ] && fail "the record outlived the connect" || ok
[ -e "$root/run/nvme-swapguard-secrets/secrets.json" ] && fail "the secrets file outlived the connect" || ok
expect_no_secret
stop_daemon
stop_container
}
run_case swap-through-the-real-cli

case_refused_then_back_on_a_later_try() {
fabrics_node
{
  echo "answer 0 $(conn captured)"
  echo "answer 2 $(conn failed ', "error_kind": "refused", "errno": 111, "next_try_usec": @NOW+2@, "give_up_at_usec": @NOW+600@')"
  echo "answer 0 $(conn back ', "controller": "nvme1"')"
} > "$tmp/fabrics.script"
start_fabrics_unit
start_daemon
start_container "$ID" build
wait_state unloaded-waiting-driver || return 1
[ "$(head -1 "$tmp/fabrics-unit.log" | cut -d' ' -f1)" = capture ] && ok || fail "no capture asked for: $(cat "$tmp/fabrics-unit.log")"
expect_log "Unload of the NVMe stack waiting for nvme-swapguard-fabrics.service to capture"
expect_kernel "delete_module nvme_tcp flags=.* -> 0"
expect_log "MESSAGE_ID=3e7d56b3e107443d94539a8b86848780"
expect_log "nvme1: tcp 127.0.0.1:4420 $NQN: disconnected by the unload, connected again after the load"
python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["fabrics"]; assert f[0]["outcome"]=="pending" and f[0]["address"]=="127.0.0.1:4420", f' \
  "$root/run/nvme-swapguard/state.json" && ok || fail "state file: $(cat "$root/run/nvme-swapguard/state.json")"
ready
wait_state swapped || return 1
wait_log "not back after the load: .*next try in [0-9]+ s" || fail "no pending entry: $(tail -5 "$tmp/daemon.log")"
expect_log "MESSAGE_ID=0840d35ab20f4e1c8d7f638a5d68b9ad"
expect_log "SWAPGUARD_FABRICS_ERROR_KIND=refused"
# The retry comes by itself, at the next try the unit named.
wait_log "connected again on a later try as nvme1" || fail "no retry: $(tail -5 "$tmp/daemon.log")"
[ "$(unit_runs)" -eq 3 ] && ok || fail "unit runs: $(cat "$tmp/fabrics-unit.log")"
sleep 0.5 # the status document is written when the loop is idle
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["fabrics"][0]["outcome"]=="reconnected" and d["fabrics_warnings"]==[], d' \
  "$root/var/log/nvme-swapguard/status.json" && ok || fail "status document: $(cat "$root/var/log/nvme-swapguard/status.json")"
expect_no_secret
stop_daemon
stop_container
}
run_case refused-then-back-on-a-later-try

case_silent_unit_no_unload() {
fabrics_node
echo silent > "$tmp/fabrics.script"
start_fabrics_unit
SWAPGUARD_TEST_FABRICS_DEADLINE_USEC=1500000 start_daemon
start_container "$ID" build
wait_state blocked || return 1
wait_log "did not answer the capture request" || fail "no deadline: $(tail -5 "$tmp/daemon.log")"
expect_log "MESSAGE_ID=e55a607a64cb44b49f39aaa28ab948e6"
expect_log "journalctl -u nvme-swapguard-fabrics"
expect_log "Not unloading"
expect_no_kernel "delete_module"
[ "$(state)" = blocked ] && ok || fail "state $(state) after a silent unit"
"$FAKE_NODE" "$root" loaded nvme_tcp && ok || fail "nvme_tcp unloaded without a capture"
stop_daemon
stop_container
}
run_case silent-unit-no-unload

case_lost_after_give_up() {
fabrics_node
{
  echo "answer 0 $(conn captured)"
  echo "answer 3 $(conn lost ', "error_kind": "no-answer", "errno": 11')"
} > "$tmp/fabrics.script"
start_fabrics_unit
start_daemon
start_container "$ID" build
wait_state unloaded-waiting-driver || return 1
ready
wait_state swapped || return 1
wait_log "given up after the load" || fail "no given-up entry: $(tail -5 "$tmp/daemon.log")"
expect_log "MESSAGE_ID=98602a2a4eb24d3d9c5ea421a33e2210"
sleep 0.5
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["fabrics"][0]["outcome"]=="lost" and "lost" in d["fabrics_warnings"][0], d' \
  "$root/var/log/nvme-swapguard/status.json" && ok || fail "status document: $(cat "$root/var/log/nvme-swapguard/status.json")"
stop_daemon
stop_container
}
run_case lost-after-give-up

case_stop_while_a_connect_runs() {
fabrics_node
{
  echo "answer 0 $(conn captured)"
  echo "hang 30 0 $(conn back ', "controller": "nvme1"')"
} > "$tmp/fabrics.script"
start_fabrics_unit
start_daemon
start_container "$ID" build
wait_state unloaded-waiting-driver || return 1
ready
wait_state swapped || return 1
wait_unit_runs 2 || { fail "no connect asked for"; return 1; }
local t0 t1
t0=$(date +%s%N)
stop_daemon_only
t1=$(date +%s%N)
echo "    stop while the connect hangs took $(( (t1 - t0) / 1000000 )) ms"
for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
wait "${pids[@]}" 2>/dev/null
pids=() container_pid=
}
run_case stop-while-a-connect-runs

case_start_with_a_record() {
fabrics_node
echo "answer 0 $(conn back ', "controller": "nvme1"')" > "$tmp/fabrics.script"
mkdir -p "$root/run/nvme-swapguard-fabrics"
echo '{"version": 2, "connections": []}' > "$root/run/nvme-swapguard-fabrics/record.json"
start_fabrics_unit
start_daemon
wait_log "nvme-swapguard started" || { fail "no start"; return 1; }
wait_log "connected again on start as nvme1" || fail "no connect on start: $(tail -5 "$tmp/daemon.log")"
[ "$(cut -d' ' -f1 "$tmp/fabrics-unit.log")" = connect ] && ok || fail "unit runs: $(cat "$tmp/fabrics-unit.log")"
stop_daemon
}
run_case start-with-a-record

case_observe_says_would() {
fabrics_node
echo silent > "$tmp/fabrics.script"
printf '[Swap]\nMode=observe\n' > "$root/etc/nvme-swapguard/nvme-swapguard.conf"
start_fabrics_unit
start_daemon
start_container "$ID" build
wait_state would-unload || return 1
expect_log "Observe: nvme1: tcp 127.0.0.1:4420 $NQN: would be disconnected by the unload and connected again after the load"
expect_no_kernel "delete_module|connect "
[ -e "$tmp/fabrics-unit.log" ] && fail "observe asked the unit: $(cat "$tmp/fabrics-unit.log")" || ok
expect_no_secret
stop_daemon
stop_container
}
run_case observe-says-would

case_no_build_without_transport() {
fabrics_node
start_fabrics_unit
echo silent > "$tmp/fabrics.script"
start_daemon
FABRICS_TREE=notcp start_container "$ID" build
wait_state no-build || return 1
expect_log "MESSAGE_ID=ec4b0c9739fb480e85cdd1a704bae1aa"
expect_log "has no build of nvme_tcp, which the node's NVMe over Fabrics connections need \\(nvme1: tcp 127.0.0.1:4420"
expect_no_kernel "delete_module"
"$FAKE_NODE" "$root" loaded nvme_tcp && ok || fail "nvme_tcp unloaded for a container without it"
[ -e "$tmp/fabrics-unit.log" ] && fail "a capture without an unload: $(cat "$tmp/fabrics-unit.log")" || ok
expect_no_secret
stop_daemon
stop_container
}
run_case no-build-without-transport

echo "daemon-fabrics-fakeroot: $checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
