#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Someone else's load in progress is not a fault: the driver container's own
# module loads (an older image's insmod of nvme_core, then nvme, after its
# openibd restart), driven one step at a time on a fake node, with the
# daemon's state sampled between each pair of them. Each step of the
# container is made while the daemon is stopped (SIGSTOP), so that the
# daemon sees it whole, whatever the machine's load; SIGHUP is the module
# uevent a fake kernel cannot send (a reload judges the stack again); the
# daemon's own words say when it has looked. The container's processes are
# fake /proc entries in its crio scope: comm insmod, /proc/<pid>/syscall in
# finit_module while "in the kernel".
# Env (set by meson): SWAPGUARD_DAEMON, FAKE_KERNEL_SO, FAKE_NODE.
set -uo pipefail
: "${WAIT_STATE_SEC:=30}"
. "$(dirname "$0")/lib-daemon-fakeroot.sh"

start_container() { start_node_container; }

MID_STACK_BROKEN=a81ba0c10e82421d97e29bd6c629dd9a
MID_STACK_BROKEN_IN_USE=df719088268a49d38fced14e4b4783e8
FINIT_MODULE=$(printf '#include <sys/syscall.h>\nSYS_finit_module\n' | cc -E -P - 2>/dev/null | tail -1)
[[ $FINIT_MODULE =~ ^[0-9]+$ ]] || { echo "SKIP: cannot tell finit_module's number (cc -E)"; exit 77; }

# A process of the container (its crio scope) named $1; $2 "call": inside
# finit_module now. Its pid in $proc_pid.
container_proc() {
  sleep 600 &
  proc_pid=$!
  procs+=("$proc_pid")
  mkdir -p "$root/proc/$proc_pid"
  echo "0::/kubepods.slice/kubepods-pod1.slice/crio-$ID.scope" > "$root/proc/$proc_pid/cgroup"
  echo "$1" > "$root/proc/$proc_pid/comm"
  proc_call "$proc_pid" "${2:-}"
}
# (Not in $pids: stop_daemon would forget the container with them.)
procs=()
stop_procs() {
  [ ${#procs[@]} -gt 0 ] || return 0
  kill "${procs[@]}" 2>/dev/null; wait "${procs[@]}" 2>/dev/null; procs=()
}
trap 'stop_procs; cleanup' EXIT
# The process $1 enters ("call") or leaves (anything else) finit_module.
proc_call() {
  if [ "$2" = call ]; then
    echo "$FINIT_MODULE 0x3 0x55d0c0de0000 0x0 0x0 0x0 0x0 0x7ffd00000000 0x7f0000000000" > "$root/proc/$1/syscall"
  else
    echo "-1 0x7ffd00000000 0x7f0000000000" > "$root/proc/$1/syscall"
  fi
}
# The insmod is over: the process is the entrypoint's shell again (the
# fork before the next insmod), out of any module call.
proc_done() { echo sh > "$root/proc/$1/comm"; proc_call "$1" -; }

# The fake kernel loads the container's build of $1 (nvme-core, nvme), as
# its insmod would.
kload() {
  NVME_SWAPGUARD_ROOT=$root FAKE_KERNEL_ROOT=$root FAKE_KERNEL_LOG=$tmp/kernel.log LD_PRELOAD=$FAKE_KERNEL_SO \
    python3 - "$root/proc/$container_pid/root/lib/modules/$rel/extra/mlnx-nvme/host/$1.ko" <<'PY'
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
data = open(sys.argv[1], "rb").read()
sys.exit(0 if libc.init_module(data, len(data), b"") == 0 else 1)
PY
  [ $? -eq 0 ] && ok || fail "the container's insmod of $1 failed: $(tail -3 "$tmp/kernel.log")"
}

pause_daemon() { kill -STOP "$daemon_pid"; }
resume_daemon() { kill -CONT "$daemon_pid"; kill -HUP "$daemon_pid"; }
# The daemon said /$1/ (its Nth time, $2, default 1) within WAIT_STATE_SEC.
saw() {
  local n=${2:-1} deadline=$((SECONDS + WAIT_STATE_SEC))
  while [ "$SECONDS" -lt "$deadline" ]; do
    [ "$(grep -cE -- "$1" "$tmp/daemon.log")" -ge "$n" ] && { ok; return 0; }
    sleep 0.1
  done
  fail "the daemon never said /$1/; its output:"; tail -20 "$tmp/daemon.log" | sed 's/^/    /'
  return 1
}
# Between two of the container's steps: still waiting for its driver, no
# broken stack reported, nothing of the container's build taken out.
sample_between() {
  [ "$(state)" = unloaded-waiting-driver ] && ok || fail "$1: state $(state), expected unloaded-waiting-driver"
  expect_no_log "MESSAGE_ID=$MID_STACK_BROKEN"
  [ "$(grep -cE 'delete_module nvme_core flags=.* -> 0' "$tmp/kernel.log")" -eq 1 ] && ok ||
    fail "$1: nvme_core removed again after the daemon's unload: $(cat "$tmp/kernel.log")"
}

# --- an older image loads nvme_core, then nvme: no fault at any point ------
case_older_image_interleaved() {
new_node
start_daemon
start_container
wait_state unloaded-waiting-driver || return 1
# 1. insmod nvme_core: in the kernel, nvme_core already there
pause_daemon
container_proc insmod call
p1=$proc_pid
kload nvme-core
resume_daemon
saw "works on modules \\(insmod, pid $p1\\)" || return 1
sample_between "insmod nvme_core in progress"
# 2. the gap between the two insmods: nobody in a module call. The daemon
# looks again STACK_SETTLE_CONFIRM_USEC (2 s) after it first finds the
# stack broken, and repairs it if it still is; the gap this stands for lasts
# milliseconds in an image's entrypoint. So the daemon is stopped as soon as
# it said so and sampled stopped, and the next insmod is in the kernel
# before it runs again, however long the machine takes to get there (its
# clock runs while stopped: the second look, when it comes, finds nvme
# loaded and the container in a module call).
pause_daemon
proc_done "$p1"
resume_daemon
saw "looks broken \\(nvme_core is loaded without nvme: no PCIe NVMe driver\\); judging it again" || return 1
pause_daemon
sample_between "between the two insmods"
# 3. insmod nvme: in the kernel, nvme there, then over
container_proc insmod call
p2=$proc_pid
kload nvme
resume_daemon
saw "works on modules \\(insmod, pid $p2\\)" || return 1
sample_between "insmod nvme in progress"
pause_daemon
proc_done "$p2"
resume_daemon
saw "The NVMe stack works now" || return 1
sample_between "after both insmods"
# 4. the ready file: the swap the container made, reported, nothing loaded by us
ready
wait_state swapped || return 1
expect_log "Swapped \\(loaded by the driver container\\)"
expect_no_log "MESSAGE_ID=$MID_STACK_BROKEN"
[ "$(grep -cE 'init_module nvme_core .*-> 0' "$tmp/kernel.log")" -eq 1 ] && ok ||
  fail "nvme_core loaded more than once: $(cat "$tmp/kernel.log")"
stop_daemon
stop_container
stop_procs
}
run_case older-image-interleaved

# --- the container stops half-way, its nvme_core in use: reported, waited on,
# repaired once the use ended ------------------------------------------------
case_half_loaded_in_use() {
new_node
start_daemon
start_container
wait_state unloaded-waiting-driver || return 1
pause_daemon
container_proc insmod call
p1=$proc_pid
kload nvme-core
proc_done "$p1"
# a namespace opened through it (one reference, no holder)
fn module nvme_core 1 - OE
resume_daemon
saw "MESSAGE_ID=$MID_STACK_BROKEN_IN_USE SWAPGUARD_STATE=unloaded-waiting-driver SWAPGUARD_MODULE=nvme_core" || return 1
expect_log "nvme_core is in use \\(1 reference beyond its holders\\): not repairing it"
sample_between "broken, in use"
# the use ends: the next look repairs (the container's nvme_core out, the
# in-tree stack back while the container is still expected)
fn module nvme_core 0 - OE
saw "MESSAGE_ID=$MID_STACK_BROKEN SWAPGUARD_STATE=unloaded-waiting-driver SWAPGUARD_MODULE=nvme_core" || return 1
wait_log "delete_module nvme_core flags=.* -> 0.*" 20
saw "-> (repairing|restoring)" || return 1
[ "$(grep -cE "MESSAGE_ID=$MID_STACK_BROKEN_IN_USE" "$tmp/daemon.log")" -le 1 ] && ok || fail "in use said more than once"
stop_daemon
stop_container
stop_procs
}
run_case half_loaded_in_use

echo "daemon-settle-fakeroot: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
