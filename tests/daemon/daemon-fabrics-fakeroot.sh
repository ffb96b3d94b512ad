#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# NVMe over Fabrics across the swap (issue 27), the real daemon on a fake
# node: the in-tree stack with nvme_fabrics + nvme_tcp loaded and one
# NVMe/TCP controller (nvme1) in /sys/class/nvme, shaped as 6.1 shows it
# (FIELD-NOTES section 11: transport, address, subsysnqn, hostnqn, hostid,
# state, the connect options; dhchap_secret root-only). The fake kernel
# removes modules but knows nothing of fabrics, so the case does what the
# kernel's nvme_tcp module exit does (the controller goes) and
# /dev/nvme-fabrics is a plain file that captures what the reconnect
# writes (a reply the library cannot parse: the reconnect is a failure the
# daemon must tell, with the address). Cases: the record before the
# unload, the secret never in the journal, the state file, the status
# document or the record (only in the 0600 secrets file and in what goes
# to the kernel); a container tree without nvme_tcp is no-build with no
# unload; a daemon killed between the unload and the reconnect still knows
# the connection after its restart.
set -uo pipefail
. "$(dirname "$0")/lib-daemon-fakeroot.sh"

SECRET='DHHC-1:00:c3dhcGd1YXJkLWZhYnJpY3MtdGVzdC1zZWNyZXQtMjc=:'
NQN=nqn.2026-12.io.swapguard:fake-target
node_dirs=(/var/log/nvme-swapguard /dev)

# The stack's fabrics modules, in the host's tree and loaded.
fabrics_node() {
  new_node
  fn ko /lib/modules/$rel kernel/drivers/nvme/host/nvme-fabrics.ko nvme_fabrics nvme-core -
  fn ko /lib/modules/$rel kernel/drivers/nvme/host/nvme-tcp.ko nvme_tcp nvme-fabrics,nvme-core -
  fn modules-dep /lib/modules/$rel
  fn module nvme_core -1 nvme,nvme_fabrics,nvme_tcp
  fn module nvme_fabrics -1 nvme_tcp
  fn module nvme_tcp 0 -
  fn namespace 1 1
  local c=$root/sys/class/nvme/nvme1/
  echo tcp > "$c/transport"
  echo "traddr=127.0.0.1,trsvcid=4420,src_addr=127.0.0.1" > "$c/address"
  echo "$NQN" > "$c/subsysnqn"
  echo "nqn.2014-08.org.nvmexpress:uuid:5eed0000-0000-4000-8000-000000000027" > "$c/hostnqn"
  echo 5eed0000-0000-4000-8000-000000000027 > "$c/hostid"
  echo live > "$c/state"
  echo 600 > "$c/ctrl_loss_tmo"; echo 10 > "$c/reconnect_delay"; echo off > "$c/fast_io_fail_tmo"
  echo 5 > "$c/kato"; echo 2 > "$c/queue_count"; echo 127 > "$c/sqsize"; echo 1 > "$c/cntlid"
  echo "$SECRET" > "$c/dhchap_secret"; chmod 600 "$c/dhchap_secret"
  echo none > "$c/dhchap_ctrl_secret"; chmod 600 "$c/dhchap_ctrl_secret"
  : > "$root/dev/nvme-fabrics"
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

# What the kernel's nvme_tcp exit does to its controllers.
kernel_drops_tcp() { rm -rf "$root/sys/class/nvme/nvme1" "$root/sys/block/nvme1n1"; }

# No file the daemon writes for people or for itself carries the secret.
expect_no_secret() {
  local f
  for f in "$tmp/daemon.log" "$root/run/nvme-swapguard/state.json" \
    "$root/var/log/nvme-swapguard/status.json" "$root/run/nvme-swapguard/fabrics.json"; do
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
expect_log "MESSAGE_ID=3e7d56b3e107443d94539a8b86848780"
expect_log "nvme1: tcp 127.0.0.1:4420 $NQN: disconnected by the unload, reconnected after the load"
expect_log "SWAPGUARD_FABRICS_ADDRESS=127.0.0.1:4420"
[ -s "$root/run/nvme-swapguard/fabrics.json" ] && ok || fail "no fabrics record after the unload"
[ "$(stat -c %a "$root/run/nvme-swapguard/fabrics-secrets.json" 2>/dev/null)" = 600 ] && ok ||
  fail "secrets file mode $(stat -c %a "$root/run/nvme-swapguard/fabrics-secrets.json" 2>&1)"
python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["fabrics"]; assert f[0]["outcome"]=="pending" and f[0]["address"]=="127.0.0.1:4420", f' \
  "$root/run/nvme-swapguard/state.json" && ok || fail "state file: $(cat "$root/run/nvme-swapguard/state.json")"
kernel_drops_tcp
ready
wait_state swapped || return 1
expect_kernel "finit_module nvme_tcp .*-> 0|init_module nvme_tcp .*-> 0"
# What went to the kernel: the recorded options, with the secret (only there).
grep -qF "nqn=$NQN" "$root/dev/nvme-fabrics" && ok || fail "/dev/nvme-fabrics got: $(cat "$root/dev/nvme-fabrics")"
grep -qF "traddr=127.0.0.1,trsvcid=4420" "$root/dev/nvme-fabrics" && ok || fail "no address in the connect"
grep -qF "dhchap_secret=$SECRET" "$root/dev/nvme-fabrics" && ok || fail "the secret was not passed to the kernel"
# The fake /dev/nvme-fabrics gives no "instance=" back: a failure told with the address.
expect_log "MESSAGE_ID=98602a2a4eb24d3d9c5ea421a33e2210"
expect_log "nvme1: tcp 127.0.0.1:4420 $NQN: not reconnected after the load"
sleep 0.5 # the status document is written when the loop is idle
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["fabrics"][0]["outcome"]=="failed" and "127.0.0.1:4420" in d["fabrics_warnings"][0], d' \
  "$root/var/log/nvme-swapguard/status.json" && ok || fail "status document: $(cat "$root/var/log/nvme-swapguard/status.json")"
[ -e "$root/run/nvme-swapguard/fabrics.json" ] && ok || fail "the record of a connection not back was removed"
expect_no_secret
stop_daemon
stop_container
}
run_case swap-with-connection

case_no_build_without_transport() {
fabrics_node
start_daemon
FABRICS_TREE=notcp start_container "$ID" build
wait_state no-build || return 1
expect_log "MESSAGE_ID=ec4b0c9739fb480e85cdd1a704bae1aa"
expect_log "has no build of nvme_tcp, which the node's NVMe over Fabrics connections need \(nvme1: tcp 127.0.0.1:4420"
expect_no_kernel "delete_module"
"$FAKE_NODE" "$root" loaded nvme_tcp && ok || fail "nvme_tcp unloaded for a container without it"
[ -e "$root/run/nvme-swapguard/fabrics.json" ] && fail "a record without an unload" || ok
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
kernel_drops_tcp
: > "$tmp/daemon.log"
start_daemon
wait_log "nvme-swapguard started" || { fail "no restart"; return 1; }
wait_state unloaded-waiting-driver || return 1
# The restarted daemon shows the pending connection before any reconnect.
python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["fabrics"]; assert f[0]["outcome"]=="pending", f' \
  "$root/run/nvme-swapguard/state.json" && ok || fail "pending connection not shown after the restart"
ready
wait_state swapped || return 1
grep -qF "nqn=$NQN" "$root/dev/nvme-fabrics" && ok || fail "the restarted daemon did not reconnect from the record"
expect_log "nvme1: tcp 127.0.0.1:4420 $NQN: not reconnected after the load"
expect_no_secret
stop_daemon
stop_container
}
run_case restart-between-unload-and-reconnect

echo "daemon-fabrics-fakeroot: $checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
