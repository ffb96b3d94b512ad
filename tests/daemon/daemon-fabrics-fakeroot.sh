#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# NVMe over Fabrics across the swap (issue 27), the real daemon on a fake
# node: the in-tree stack with nvme_fabrics + nvme_tcp loaded and one
# NVMe/TCP controller (nvme1, its namespace nvme1n1) with a DH-HMAC-CHAP
# secret, laid out as 6.1 shows it (fake-node `fabrics`,
# tests/fakeroot/fake-node-fabrics.h). The fake kernel does what the real
# one does: removing nvme_tcp deletes the controller, /dev/nvme-fabrics
# comes and goes with nvme_fabrics and connects a registered target (its
# log says "connect <options> -> 0|ERRNO"; FAKE_KERNEL_SCRIPT "connect
# <nqn> <ERRNO>" makes it refuse). Cases: the record before the unload and
# the reconnect through the container's nvme_tcp after the load; the
# secret never in the journal, the state file, the status document or the
# record (only in the 0600 secrets file and in what goes to the kernel); a
# refused reconnect told with the address and the kernel's error in the
# journal, the state file and the status document; a container tree
# without nvme_tcp is no-build with no unload; a daemon killed between the
# unload and the reconnect still reconnects after its restart; Mode=observe
# says what it would drop and records nothing.
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
    "$root/var/log/nvme-swapguard/status.json" "$root/run/nvme-swapguard-fabrics/record.json"; do
    [ -e "$f" ] || continue
    grep -qF "${SECRET:10:20}" "$f" && fail "the DH-HMAC-CHAP secret is in $f" || ok
  done
}

case_swap_with_connection() {
fabrics_node
start_daemon
start_container "$ID" build
wait_state unloaded-waiting-driver || return 1
expect_kernel "delete_module nvme_tcp flags=.* -> 0"
[ -e "$root/sys/class/nvme/nvme1" ] && fail "the controller outlived nvme_tcp" || ok
expect_log "MESSAGE_ID=3e7d56b3e107443d94539a8b86848780"
expect_log "nvme1: tcp 127.0.0.1:4420 $NQN: disconnected by the unload, reconnected after the load"
expect_log "SWAPGUARD_FABRICS_ADDRESS=127.0.0.1:4420"
[ -s "$root/run/nvme-swapguard-fabrics/record.json" ] && ok || fail "no fabrics record after the unload"
[ "$(stat -c %a "$root/run/nvme-swapguard-fabrics/secrets.json" 2>/dev/null)" = 600 ] && ok ||
  fail "secrets file mode $(stat -c %a "$root/run/nvme-swapguard-fabrics/secrets.json" 2>&1)"
python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["fabrics"]; assert f[0]["outcome"]=="pending" and f[0]["address"]=="127.0.0.1:4420", f' \
  "$root/run/nvme-swapguard/state.json" && ok || fail "state file: $(cat "$root/run/nvme-swapguard/state.json")"
ready
wait_state swapped || return 1
expect_kernel "finit_module nvme_tcp .*-> 0|init_module nvme_tcp .*-> 0"
# What went to the kernel: the recorded options, with the secret (only there).
expect_kernel "connect nqn=$NQN,transport=tcp,traddr=127.0.0.1,trsvcid=4420.*dhchap_secret=${SECRET}.* -> 0"
expect_log "MESSAGE_ID=6cb81c07790f45d5888c8cc768ad5921"
expect_log "nvme1: tcp 127.0.0.1:4420 $NQN: reconnected after the load as nvme[0-9]+, its namespaces back"
expect_log "all 2 NVMe namespaces seen before the unload are back"
sleep 0.5 # the status document is written when the loop is idle
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["fabrics"][0]["outcome"]=="reconnected" and d["fabrics_warnings"]==[], d' \
  "$root/var/log/nvme-swapguard/status.json" && ok || fail "status document: $(cat "$root/var/log/nvme-swapguard/status.json")"
[ -e "$root/run/nvme-swapguard-fabrics/record.json" ] && fail "the record outlived the reconnect" || ok
[ -e "$root/run/nvme-swapguard-fabrics/secrets.json" ] && fail "the secrets file outlived the reconnect" || ok
expect_no_secret
stop_daemon
stop_container
}
run_case swap-with-connection

case_refused_reconnect() {
fabrics_node
echo "connect $NQN ECONNREFUSED" > "$FAKE_KERNEL_SCRIPT"
start_daemon
start_container "$ID" build
wait_state unloaded-waiting-driver || return 1
ready
wait_state swapped || return 1
expect_kernel "connect nqn=$NQN.* -> ECONNREFUSED"
expect_log "MESSAGE_ID=98602a2a4eb24d3d9c5ea421a33e2210"
expect_log "nvme1: tcp 127.0.0.1:4420 $NQN: not reconnected after the load: .*\(Connection refused\)"
expect_log "SWAPGUARD_FABRICS_ERRNO=111"
sleep 0.5
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["fabrics"][0]["outcome"]=="failed" and "127.0.0.1:4420" in d["fabrics_warnings"][0], d' \
  "$root/var/log/nvme-swapguard/status.json" && ok || fail "status document: $(cat "$root/var/log/nvme-swapguard/status.json")"
[ -e "$root/run/nvme-swapguard-fabrics/record.json" ] && ok || fail "the record of a connection not back was removed"
# Fixed, a restart reconnects the pending record.
: > "$FAKE_KERNEL_SCRIPT"
stop_daemon_only
start_daemon
wait_log "reconnected on start as nvme[0-9]+" || fail "no reconnect on start: $(tail -5 "$tmp/daemon.log")"
[ -e "$root/run/nvme-swapguard-fabrics/record.json" ] && fail "the record outlived the reconnect on start" || ok
expect_no_secret
stop_daemon
stop_container
}
run_case refused-reconnect

case_observe_says_would() {
fabrics_node
printf '[Swap]\nMode=observe\n' > "$root/etc/nvme-swapguard/nvme-swapguard.conf"
start_daemon
start_container "$ID" build
wait_state would-unload || return 1
expect_log "Observe: nvme1: tcp 127.0.0.1:4420 $NQN: would be disconnected by the unload and reconnected after the load"
expect_no_kernel "delete_module|connect "
[ -e "$root/run/nvme-swapguard-fabrics/record.json" ] && fail "observe wrote a fabrics record" || ok
[ -e "$root/run/nvme-swapguard-fabrics/secrets.json" ] && fail "observe wrote the secrets file" || ok
python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["fabrics"]; assert f[0]["outcome"]=="live", f' \
  "$root/run/nvme-swapguard/state.json" && ok || fail "state file: $(cat "$root/run/nvme-swapguard/state.json")"
expect_no_secret
stop_daemon
stop_container
}
run_case observe-says-would

case_no_build_without_transport() {
fabrics_node
start_daemon
FABRICS_TREE=notcp start_container "$ID" build
wait_state no-build || return 1
expect_log "MESSAGE_ID=ec4b0c9739fb480e85cdd1a704bae1aa"
expect_log "has no build of nvme_tcp, which the node's NVMe over Fabrics connections need \(nvme1: tcp 127.0.0.1:4420"
expect_no_kernel "delete_module"
"$FAKE_NODE" "$root" loaded nvme_tcp && ok || fail "nvme_tcp unloaded for a container without it"
[ -e "$root/run/nvme-swapguard-fabrics/record.json" ] && fail "a record without an unload" || ok
expect_no_secret
stop_daemon
stop_container
}
run_case no-build-without-transport

case_restart_between_unload_and_reconnect() {
fabrics_node
start_daemon
start_container "$ID" build
wait_state unloaded-waiting-driver || return 1
kill -9 "$daemon_pid"; wait "$daemon_pid" 2>/dev/null; daemon_pid=
: > "$tmp/daemon.log"
start_daemon
wait_log "nvme-swapguard started" || { fail "no restart"; return 1; }
wait_state unloaded-waiting-driver || return 1
# The restarted daemon shows the pending connection before any reconnect.
python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["fabrics"]; assert f[0]["outcome"]=="pending", f' \
  "$root/run/nvme-swapguard/state.json" && ok || fail "pending connection not shown after the restart"
ready
wait_state swapped || return 1
expect_kernel "connect nqn=$NQN.* -> 0"
expect_log "nvme1: tcp 127.0.0.1:4420 $NQN: reconnected after the load"
expect_no_secret
stop_daemon
stop_container
}
run_case restart-between-unload-and-reconnect

echo "daemon-fabrics-fakeroot: $checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
