#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The pod's end, against the daemon binary on a fake node
# (tests/fakeroot: fake-node + the fake kernel LD_PRELOAD shim); the helpers
# are lib-daemon-fakeroot.sh's. The driver container is killed while
# swapped, before any cleanup of its own (kubelet's SIGKILL at the end of the
# grace period, a crash): with RESTORE_DRIVER_ON_POD_TERMINATION=true the
# daemon takes NVIDIA's build back and restores the in-tree stack, also after
# a namespace in use blocked it; with false the build stays and the journal
# says so. The real kernel and CRI-O: vm-crio/crio-pod-end.sh.
# Env (set by meson): SWAPGUARD_DAEMON, FAKE_KERNEL_SO, FAKE_NODE.
set -uo pipefail
. "$(dirname "$0")/lib-daemon-fakeroot.sh"

# The wait for the container's own cleanup is 10 s of quiet (pod-end.h):
# poll the state file for up to 60 s.
wait_state_long() { WAIT_STATE_SEC=60 wait_state "$@"; }
line_of() { grep -nE -- "$1" "$tmp/daemon.log" | head -1 | cut -d: -f1; }
swapped_on() {
  start_daemon
  start_container $ID_A build "$1"
  wait_state unloaded-waiting-driver
  ready
  wait_state swapped
}
# kubelet's SIGKILL: the container's init is gone, its cleanup never ran, its
# ready file stays behind (the entrypoint removes it only in its cleanup).
kill_container() { kill -KILL "${pids[0]}"; wait "${pids[0]}" 2>/dev/null; }

ENV_TRUE='"ENABLE_NFSRDMA=true","RESTORE_DRIVER_ON_POD_TERMINATION=true"'
ENV_FALSE='"ENABLE_NFSRDMA=true","RESTORE_DRIVER_ON_POD_TERMINATION=false"'

# --- true: the daemon takes its build back --------------------------------
case=pod-end-true
new_node
swapped_on "$ENV_TRUE"
loads=$(grep -c 'init_module nvme ' "$tmp/kernel.log")
kill_container
wait_state_long restored
expect_log "Driver container ${ID_A:0:12} ended with RESTORE_DRIVER_ON_POD_TERMINATION=true: giving its own cleanup"
expect_log "MESSAGE_ID=143e096990b049cdbf61c0fd633db3f8 SWAPGUARD_STATE=swapped SWAPGUARD_CONTAINER_ID=$ID_A"
expect_log "MESSAGE_ID=2f196a6be30a4229ac05caa9322f6a37 SWAPGUARD_STATE=restored SWAPGUARD_CONTAINER_ID=$ID_A"
expect_log "Restored the in-tree NVMe stack \(pod-ended\)"
# the wait came first, then the unload, then the in-tree load
w=$(line_of "giving its own cleanup"); t=$(line_of "143e096990b049cdbf61c0fd633db3f8")
[ -n "$w" ] && [ -n "$t" ] && [ "$w" -lt "$t" ] && ok || fail "the take-back (line $t) did not follow the wait (line $w)"
[ "$(grep -c 'delete_module nvme flags=.* -> 0' "$tmp/kernel.log")" -ge 2 ] && ok ||
  fail "NVIDIA's nvme was not taken out: $(cat "$tmp/kernel.log")"
[ "$(grep -c 'init_module nvme ' "$tmp/kernel.log")" -gt "$loads" ] && ok || fail "the in-tree nvme was not loaded back"
"$FAKE_NODE" "$root" loaded nvme && ok || fail "no nvme loaded at the end"
expect_no_log "Two privileged driver containers match"
stop_daemon

# --- false: the build stays, and the journal says so ------------------------
case=pod-end-false
new_node
swapped_on "$ENV_FALSE"
kill_container
expect_log_soon() { wait_log "$1" 10 && ok || fail "daemon output lacks /$1/"; }
expect_log_soon "MESSAGE_ID=0122ca423e844086b82259791e4cd8d0 SWAPGUARD_STATE=swapped SWAPGUARD_CONTAINER_ID=$ID_A"
expect_log "RESTORE_DRIVER_ON_POD_TERMINATION is false: NVIDIA's NVMe build from it stays loaded \(swapped\)"
expect_no_log "giving its own cleanup"
[ "$(state)" = swapped ] && ok || fail "state is $(state) after the pod's end with false, expected swapped"
stop_daemon

# --- true, a namespace mounted at that moment: blocked, then restored -------
case=pod-end-blocked
new_node
swapped_on "$ENV_TRUE"
fn mount nvme0n1p1 /var/lib/data xfs
kill_container
wait_state_long blocked
expect_log "MESSAGE_ID=d26a0597308b450481324cf4e89b659b SWAPGUARD_STATE=blocked SWAPGUARD_DEVICE=nvme0n1p1 SWAPGUARD_MOUNT_POINT=/var/lib/data"
"$FAKE_NODE" "$root" loaded nvme && ok || fail "nvme was taken out from under a mounted namespace"
[ "$(grep -c 'delete_module nvme flags=.* -> 0' "$tmp/kernel.log")" -eq 1 ] && ok ||
  fail "a removal of nvme while a namespace is mounted: $(cat "$tmp/kernel.log")"
# the use ends (edit the fake mount table) and the daemon is asked to look again
sed -i '\#/var/lib/data#d' "$root/proc/1/mountinfo"
kill -HUP "$daemon_pid"
wait_state_long restored
expect_log "MESSAGE_ID=2f196a6be30a4229ac05caa9322f6a37 SWAPGUARD_STATE=restored"
expect_no_log "did not become ready"
stop_daemon

# --- after the pod's end, kubelet's restart in the same pod (a crash loop's
# back-off is 10 s or more): the crashed attempt's ready file is still there
# and must not count for the new attempt (seen under the real CRI-O).
case=pod-end-then-restart
new_node
swapped_on "$ENV_TRUE"
kill_container
wait_state_long restored
start_container $ID_B build "$ENV_TRUE"
wait_state unloaded-waiting-driver
expect_log "Ignoring the ready file $ready_path: it is older than driver container ${ID_B:0:12}"
expect_no_log "State container-seen -> loading"
unready; ready
wait_state swapped
stop_daemon

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
