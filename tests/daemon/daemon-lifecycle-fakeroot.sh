#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The driver container's whole life (issue 8), against the daemon binary on a
# fake node (tests/fakeroot: fake-node + the fake kernel LD_PRELOAD shim), as
# daemon-fakeroot.sh does (the helpers below are the same shape): a new
# container over an earlier container's build, a ready file older than the
# container, a tree without an NVMe build, ENABLE_NFSRDMA unset on a sources
# image. (The broken stack and daemon-reload need a real kernel and systemd:
# tests/daemon/vm/daemon-lifecycle-*.sh.)
# Env (set by meson): SWAPGUARD_DAEMON, FAKE_KERNEL_SO, FAKE_NODE.
set -uo pipefail
. "$(dirname "$0")/../fakeroot/lib-fake-node.sh"

for v in SWAPGUARD_DAEMON FAKE_KERNEL_SO FAKE_NODE; do
  if [ -z "${!v:-}" ] || [ ! -e "${!v}" ]; then
    echo "SKIP: $v is not set or missing (run through meson test)"; exit 77
  fi
done
command -v python3 >/dev/null || { echo "SKIP: python3 needed to read the state file"; exit 77; }

tmp=$(mktemp -d /tmp/sg-lifecycle-XXXXXX)
daemon_pid=
pids=()
cleanup() {
  [ -n "$daemon_pid" ] && kill -9 "$daemon_pid" 2>/dev/null
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  [ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
rel=6.1.0-fake-amd64
failures=0
checks=0
ID_A=aaaa2a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170615e4d3
ID_B=bbbb2a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170615e4d3

fail() { echo "FAIL [$case]: $*"; failures=$((failures + 1)); }
ok() { checks=$((checks + 1)); }
fn() { "$FAKE_NODE" "$root" "$@" || fail "fake-node $*"; }
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]) or "")' \
            "$root/run/nvme-swapguard/state.json" "$1" 2>/dev/null; }
state() { field state || echo none; }
wait_state() {
  local want=$1 i
  for i in $(seq 1 200); do
    [ "$(state)" = "$want" ] && { ok; return 0; }
    sleep 0.1
  done
  fail "state is $(state), expected $want; daemon output:"; sed 's/^/    /' "$tmp/daemon.log" | tail -20
  return 1
}
expect_log() { grep -qE -- "$1" "$tmp/daemon.log" && ok || fail "daemon output lacks /$1/"; }
expect_no_log() { grep -qE -- "$1" "$tmp/daemon.log" && fail "daemon output has /$1/" || ok; }
expect_kernel() { grep -qE -- "$1" "$tmp/kernel.log" 2>/dev/null && ok || fail "kernel log lacks /$1/"; }
expect_no_kernel() { grep -qE -- "$1" "$tmp/kernel.log" 2>/dev/null && fail "kernel log has /$1/" || ok; }

new_node() {
  root=$tmp/root-$case
  rm -f "$tmp/kernel.log" "$tmp/daemon.log"
  fake_node_in_tree
}

# A process standing in for a driver container's init. $1 id, $2 "build" or
# "nobuild" (its tree), $3 extra process.env entries as JSON strings.
start_container() {
  local id=$1 tree=$2 env=${3:-'"ENABLE_NFSRDMA=true"'}
  sleep 600 &
  local pid=$!
  pids+=("$pid")
  container_pid=$pid
  local croot=/proc/$pid/root/lib/modules/$rel
  mkdir -p "$root/proc/$pid" "$root$croot"
  # CREATED=1: CRI-O's create without the start: the runtime's init (runc) waits
  [ -n "${CREATED:-}" ] && ln -sfn /usr/bin/runc "$root/proc/$pid/exe"
  echo "0::/kubepods.slice/kubepods-pod1.slice/crio-$id.scope" > "$root/proc/$pid/cgroup"
  # privileged, in the host's user namespace (trust's check; as fake-node's `container` writes it)
  local name=entrypoint
  # CREATED=runc-init: runc 1.1.5's created container as the shipped unit
  # sees it on Linux 6.1 (tests/daemon/vm-crio/crio-create-and-reload.sh):
  # named "runc:[2:INIT]", waiting on /run/runc/<id>/exec.fifo; its exe is
  # scripted unreadable (EACCES) by the case.
  if [ "${CREATED:-}" = runc-init ]; then
    name='runc:[2:INIT]'
    mkdir -p "$root/run/runc/$id" && mkfifo "$root/run/runc/$id/exec.fifo"
  fi
  # CREATED=crun-init: crun 1.8.1's, as seen there: a fork of `crun create`
  # named "crun", waiting on /run/crun/<id>/exec.fifo.
  if [ "${CREATED:-}" = crun-init ]; then
    name=crun
    mkdir -p "$root/run/crun/$id" && mkfifo "$root/run/crun/$id/exec.fifo"
  fi
  printf 'Name:\t%s\nCapEff:\t000001ffffffffff\n' "$name" > "$root/proc/$pid/status"
  mkdir -p "$root/proc/1/ns" "$root/proc/$pid/ns"
  [ -e "$root/proc/1/ns/user" ] || echo "user:[4026531837]" > "$root/proc/1/ns/user"
  ln -f "$root/proc/1/ns/user" "$root/proc/$pid/ns/user"
  if [ "$tree" = build ]; then
    fake_node_nvidia_build $croot
  fi
  local d=$root/run/containers/storage/overlay-containers/$id/userdata
  mkdir -p "$d"
  cat > "$d/.config.json.tmp" <<JSON
{"ociVersion":"1.0.2-dev","process":{"args":["/root/entrypoint.sh"],"env":["PATH=/usr/bin",$env]},
 "annotations":{"io.kubernetes.container.name":"mofed-container",
  "io.kubernetes.cri-o.Created":"$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)",
  "io.kubernetes.pod.name":"mofed-rhcos4.16-7d9f6b8c5d-ds-${id:0:5}",
  "io.kubernetes.pod.namespace":"nvidia-network-operator"}}
JSON
  mv "$d/.config.json.tmp" "$d/config.json"
  echo "$pid" > "$d/.pidfile.tmp" && mv "$d/.pidfile.tmp" "$d/pidfile"
}

start_daemon() {
  NVME_SWAPGUARD_ROOT=$root FAKE_KERNEL_ROOT=$root FAKE_KERNEL_LOG=$tmp/kernel.log \
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
    LD_PRELOAD=$FAKE_KERNEL_SO "$SWAPGUARD_DAEMON" --root "$root" --log-target stderr "$@" \
    >>"$tmp/daemon.log" 2>&1 &
  daemon_pid=$!
}

stop_daemon() {
  kill -TERM "$daemon_pid" 2>/dev/null
  wait "$daemon_pid"; local rc=$?
  daemon_pid=
  [ "$rc" -eq 0 ] && ok || fail "daemon exited $rc on SIGTERM"
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  pids=()
}

ready_path=/run/mellanox/drivers/.driver-ready
ready() { mkdir -p "$root/run/mellanox/drivers" && touch "$root$ready_path"; }
unready() { rm -f "$root$ready_path"; }

# --- a new driver container after a swap is a new swap --------------------
case=new-container-over-build
new_node
start_daemon
start_container $ID_A build
wait_state unloaded-waiting-driver
ready
wait_state swapped
[ "$(field build_container)" = $ID_A ] && ok || fail "build_container is '$(field build_container)', expected A"
# The pod restarts (an upgrade): the old container stops and removes its
# ready file, the new one is created.
unready
kill "${pids[0]}"
sleep 0.5
rm -rf "$root/run/containers/storage/overlay-containers/$ID_A"
start_container $ID_B build
wait_state unloaded-waiting-driver
expect_log "MESSAGE_ID=d3322a26406e4cb0a41aa7fb1159b157"
[ "$(grep -cE 'delete_module nvme flags=.* -> 0' "$tmp/kernel.log")" -ge 2 ] && ok ||
  fail "the earlier build's nvme was not taken out: $(cat "$tmp/kernel.log")"
ready
wait_state swapped
[ "$(field build_container)" = $ID_B ] && ok || fail "build_container is '$(field build_container)', expected B"
expect_log "Swapped \(loaded by nvme-swapguard"
stop_daemon

# --- a ready file older than the container is ignored -------------------
case=stale-ready
new_node
ready
sleep 1.1
start_daemon
start_container $ID_A build
wait_state unloaded-waiting-driver
expect_log "MESSAGE_ID=da64cc3df69d42e9a148cb5be8ac23b1"
expect_no_kernel "init_module nvme_core|finit_module nvme_core"
# The container writes it anew when its build is ready.
unready
sleep 0.2
ready
wait_state swapped
stop_daemon

# --- a tree without an nvme build is not a swap ---------------------------
case=tree-without-build
new_node
start_daemon
start_container $ID_A nobuild '"ENABLE_NFSRDMA=true"'
wait_state unloaded-waiting-driver
ready
wait_state no-build
expect_log "MESSAGE_ID=dabe24b8d8c343048eb79349235b3955"
expect_no_log "SWAPGUARD_STATE=swapped"
# the in-tree stack is back, from the host's tree
expect_kernel "(init_module|finit_module) nvme .*-> 0"
stop_daemon

# --- ENABLE_NFSRDMA unset on a sources image: never unload for it ---------
case=no-nfsrdma
new_node
start_daemon
start_container $ID_A nobuild '"UNLOAD_STORAGE_MODULES=false"'
wait_state no-build
expect_log "MESSAGE_ID=054b86adf25a4f10a662535e9e900ff9"
expect_log "MESSAGE_ID=b04f49eafd25476a88a3ebd98a66aad2"
expect_no_kernel "delete_module"
python3 -c 'import json,sys; n=json.load(open(sys.argv[1]))["container_notes"]; sys.exit(0 if any("ENABLE_NFSRDMA" in x for x in n) else 1)' \
  "$root/run/nvme-swapguard/state.json" && ok || fail "the state file's container_notes do not say why"
stop_daemon

# --- created is not started: the runtime's init waits for the start ------
case=created-not-started
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
wait_state unloaded-waiting-driver
stop_daemon

# --- created, and its exe unreadable (EACCES): not started until it execs --
# The daemon may not read /proc/<pid>/exe of a non-dumpable runtime init
# when it lacks the ptrace right: "cannot tell" must mean "not started".
case=created-exe-unreadable
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
wait_state unloaded-waiting-driver
expect_log "Driver container ${ID_A:0:12} .* is running"
stop_daemon

# --- the start seen through the runtime's exec fifo (issue 22) -------------
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
  wait_log() { local i; for i in $(seq 1 200); do grep -qE -- "$1" "$tmp/daemon.log" && return 0; sleep 0.1; done; return 1; }
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
