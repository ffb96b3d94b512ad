#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The driver container's whole life, against the daemon binary on a
# fake node (tests/fakeroot: fake-node + the fake kernel LD_PRELOAD shim), as
# daemon-fakeroot.sh does (the helpers are lib-daemon-fakeroot.sh): a new
# container over an earlier container's build, a ready file older than the
# container, a tree without an NVMe build, ENABLE_NFSRDMA unset on a sources
# image. (The broken stack and daemon-reload need a real kernel and systemd:
# tests/daemon/vm/daemon-lifecycle-*.sh.)
# Env (set by meson): SWAPGUARD_DAEMON, FAKE_KERNEL_SO, FAKE_NODE.
set -uo pipefail
. "$(dirname "$0")/lib-daemon-fakeroot.sh"

# --- a new driver container after a swap is a new swap --------------------
case_new_container_over_build() {
new_node
start_daemon
start_container $ID_A build
wait_state unloaded-waiting-driver || return 1
ready
wait_state swapped || return 1
[ "$(field build_container)" = $ID_A ] && ok || fail "build_container is '$(field build_container)', expected A"
# The pod restarts (an upgrade): the old container stops and removes its
# ready file, the new one is created.
unready
kill "${pids[0]}"
sleep 0.5
rm -rf "$root/run/containers/storage/overlay-containers/$ID_A"
start_container $ID_B build
wait_state unloaded-waiting-driver || return 1
expect_log "MESSAGE_ID=d3322a26406e4cb0a41aa7fb1159b157"
[ "$(grep -cE 'delete_module nvme flags=.* -> 0' "$tmp/kernel.log")" -ge 2 ] && ok ||
  fail "the earlier build's nvme was not taken out: $(cat "$tmp/kernel.log")"
ready
wait_state swapped || return 1
[ "$(field build_container)" = $ID_B ] && ok || fail "build_container is '$(field build_container)', expected B"
expect_log "Swapped \(loaded by nvme-swapguard"
stop_daemon
}
run_case new-container-over-build

# --- the earlier build's own nvme_auth goes with it ------------------------
# A 6.12-shaped node; A's build ships its own nvme_auth, which holds no
# mlx_compat here: the record of A's load (state file build_modules) is
# what makes it A's. B's start takes it out with A's nvme and nvme_core.
case_shared_module_goes_with_the_build() {
root=$tmp/root-$case
rm -f "$tmp/kernel.log" "$tmp/daemon.log"
fake_node_in_tree_612
start_daemon
start_container $ID_A build-own-auth
wait_state unloaded-waiting-driver || return 1
expect_no_kernel 'delete_module nvme_auth'
ready
wait_state swapped || return 1
expect_kernel 'init_module nvme_auth'
[[ " $(field build_modules | tr -d "[]',") " == *" nvme_auth "* ]] && ok ||
  fail "the state file's build_modules lacks nvme_auth: '$(field build_modules)'"
unready
kill "${pids[0]}"
sleep 0.5
rm -rf "$root/run/containers/storage/overlay-containers/$ID_A"
start_container $ID_B build-own-auth
wait_state unloaded-waiting-driver || return 1
# once for A's load (the host's, free, replaced), once with A's build
[ "$(grep -cE 'delete_module nvme_auth flags=.* -> 0' "$tmp/kernel.log")" -eq 2 ] && ok ||
  fail "A's nvme_auth did not go with its build: $(cat "$tmp/kernel.log")"
expect_log "Unloaded the out-of-tree build of the NVMe stack \\(nvme nvme_core nvme_auth\\)"
ready
wait_state swapped || return 1
stop_daemon
}
run_case shared-module-goes-with-the-build

# --- a ready file older than the container is ignored -------------------
case_stale_ready() {
new_node
ready
sleep 1.1
start_daemon
start_container $ID_A build
wait_state unloaded-waiting-driver || return 1
expect_log "MESSAGE_ID=da64cc3df69d42e9a148cb5be8ac23b1"
expect_no_kernel "init_module nvme_core|finit_module nvme_core"
# The container writes it anew when its build is ready.
unready
sleep 0.2
ready
wait_state swapped || return 1
stop_daemon
}
run_case stale-ready

# --- a tree without an nvme build is not a swap ---------------------------
case_tree_without_build() {
new_node
start_daemon
start_container $ID_A nobuild '"ENABLE_NFSRDMA=true"'
wait_state unloaded-waiting-driver || return 1
ready
wait_state no-build || return 1
expect_log "MESSAGE_ID=dabe24b8d8c343048eb79349235b3955"
expect_no_log "SWAPGUARD_STATE=swapped"
# the in-tree stack is back, from the host's tree
expect_kernel "(init_module|finit_module) nvme .*-> 0"
stop_daemon
}
run_case tree-without-build

# --- ENABLE_NFSRDMA unset on a sources image: never unload for it ---------
case_no_nfsrdma() {
new_node
start_daemon
start_container $ID_A nobuild '"UNLOAD_STORAGE_MODULES=false"'
wait_state no-build || return 1
expect_log "MESSAGE_ID=054b86adf25a4f10a662535e9e900ff9"
expect_log "MESSAGE_ID=b04f49eafd25476a88a3ebd98a66aad2"
expect_no_kernel "delete_module"
python3 -c 'import json,sys; n=json.load(open(sys.argv[1]))["container_notes"]; sys.exit(0 if any("ENABLE_NFSRDMA" in x for x in n) else 1)' \
  "$root/run/nvme-swapguard/state.json" && ok || fail "the state file's container_notes do not say why"
stop_daemon
}
run_case no-nfsrdma

# --- created is not started: the runtime's init waits for the start ------
case_created_not_started() {
new_node
start_daemon
CREATED=1 start_container $ID_A build
sleep 2
[ "$(state)" = idle ] && ok || fail "a created, not started container was acted on: state $(state)"
expect_log "is created \(pid $container_pid\), not started"
# no exec fifo under /run/runc or /run/crun: the 2 s looks, said once
expect_log "Container ${ID_A:0:12}: no exec fifo of its runtime to watch under /run/runc or /run/crun; its start is looked for every 2 s"
expect_no_kernel "delete_module"
# StartContainer: the process execs the entrypoint
ln -sfn /usr/bin/bash "$root/proc/$container_pid/exe"
wait_state unloaded-waiting-driver || return 1
stop_daemon
}
run_case created-not-started

# --- created, and its exe unreadable (EACCES): not started until it execs --
# The daemon may not read /proc/<pid>/exe of a non-dumpable runtime init
# when it lacks the ptrace right: "cannot tell" must mean "not started".
case_created_exe_unreadable() {
new_node
CREATED=runc-init start_container $ID_A build
echo "readlink-exe $container_pid EACCES always" > "$tmp/kernel-script"
FAKE_KERNEL_SCRIPT=$tmp/kernel-script start_daemon
sleep 2
[ "$(state)" = idle ] && ok || fail "a created container with an unreadable exe was acted on: state $(state)"
expect_log "is created \(pid $container_pid\), not started \(process name \"runc:\[2:INIT\]\", exe unreadable: Permission denied, exec fifo present\)"
expect_no_kernel "delete_module"
# runc start reads the fifo and removes it, then the init execs: the fifo
# alone gone is no start (an exec that fails would leave the same)
rm -f "$root/run/runc/$ID_A/exec.fifo"
sleep 2.5
[ "$(state)" = idle ] && ok || fail "the fifo gone before the exec was taken for a start: state $(state)"
expect_no_kernel "delete_module"
# the exec: the process now bears the entrypoint's name
printf 'Name:\tentrypoint\nCapEff:\t000001ffffffffff\n' > "$root/proc/$container_pid/status"
wait_state unloaded-waiting-driver || return 1
expect_log "Driver container ${ID_A:0:12} .* is running"
stop_daemon
}
run_case created-exe-unreadable

# --- the start seen through the runtime's exec fifo -------------
# No 2 s looks while the fifo can be watched: the start is looked at when the
# runtime removes it. runc 1.1 (container_linux.go, handleFifoResult) removes
# it after the init's exec closed its write end: the process already runs the
# entrypoint when the fifo goes. crun (status.c,
# libcrun_status_write_exec_fifo) removes it before its init execs: the
# exec comes after the removal, and the looks after the removal see it.
# Without the watch the daemon says it looks every 2 s instead (the case
# above); with it, it names the fifo it watches. (crun: whether the exec
# lands within the ~2 s of looks after the removal depends on this machine's
# load, so only runc's order asserts that no fallback was needed.)
for rt in runc crun; do
  case=started-by-exec-fifo-$rt
  new_node
  start_daemon
  CREATED=$rt-init start_container $ID_A build
  wait_log "Container ${ID_A:0:12}: its start is watched on .*/run/$rt/$ID_A/exec.fifo" && ok ||
    fail "the start of a created container is not watched on its exec fifo"
  [ "$(state)" = idle ] && ok || fail "a created container was acted on: state $(state)"
  started='Name:\tentrypoint\nCapEff:\t000001ffffffffff\n'
  if [ $rt = runc ]; then
    printf "$started" > "$root/proc/$container_pid/status"
    ln -sfn /usr/bin/bash "$root/proc/$container_pid/exe"
    rm -f "$root/run/runc/$ID_A/exec.fifo"
  else
    rm -f "$root/run/crun/$ID_A/exec.fifo"
    # the exec, a moment after the removal (the looks after it see it)
    sleep 0.05
    printf "$started" > "$root/proc/$container_pid/status"
    ln -sfn /usr/bin/bash "$root/proc/$container_pid/exe"
  fi
  wait_state unloaded-waiting-driver
  [ $rt = runc ] && expect_no_log "looked for every 2 s"
  stop_daemon
done

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
