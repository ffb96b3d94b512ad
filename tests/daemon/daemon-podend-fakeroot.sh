#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The pod's end (issue 20), against the daemon binary on a fake node
# (tests/fakeroot: fake-node + the fake kernel LD_PRELOAD shim); the helpers
# are daemon-lifecycle-fakeroot.sh's. The driver container is killed while
# swapped, before any cleanup of its own (kubelet's SIGKILL at the end of the
# grace period, a crash): with RESTORE_DRIVER_ON_POD_TERMINATION=true the
# daemon takes NVIDIA's build back and restores the in-tree stack, also after
# a namespace in use blocked it; with false the build stays and the journal
# says so. The real kernel and CRI-O: vm-crio/crio-pod-end.sh.
# Env (set by meson): SWAPGUARD_DAEMON, FAKE_KERNEL_SO, FAKE_NODE.
set -uo pipefail

for v in SWAPGUARD_DAEMON FAKE_KERNEL_SO FAKE_NODE; do
  if [ -z "${!v:-}" ] || [ ! -e "${!v}" ]; then
    echo "SKIP: $v is not set or missing (run through meson test)"; exit 77
  fi
done
command -v python3 >/dev/null || { echo "SKIP: python3 needed to read the state file"; exit 77; }

tmp=$(mktemp -d /tmp/sg-podend-XXXXXX)
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
  fn init $rel
  fn ko /lib/modules/$rel kernel/block/t10-pi.ko t10_pi - -
  fn ko /lib/modules/$rel kernel/drivers/nvme/host/nvme-core.ko nvme_core t10-pi -
  fn ko /lib/modules/$rel kernel/drivers/nvme/host/nvme.ko nvme nvme-core -
  fn modules-dep /lib/modules/$rel
  fn module t10_pi -1 nvme_core
  fn module nvme_core -1 nvme
  fn module nvme 0 -
  fn namespace 0 1 partitions=1
  mkdir -p "$root/run/containers/storage/overlay-containers" "$root/etc/nvme-swapguard"
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
  printf 'Name:\t%s\nCapEff:\t000001ffffffffff\n' "$name" > "$root/proc/$pid/status"
  mkdir -p "$root/proc/1/ns" "$root/proc/$pid/ns"
  [ -e "$root/proc/1/ns/user" ] || echo "user:[4026531837]" > "$root/proc/1/ns/user"
  ln -f "$root/proc/1/ns/user" "$root/proc/$pid/ns/user"
  if [ "$tree" = build ]; then
    fn ko $croot extra/mlnx-nvme/host/nvme-core.ko nvme_core t10-pi - fake_taint=OE
    fn ko $croot extra/mlnx-nvme/host/nvme.ko nvme nvme-core - fake_taint=OE fake_exports=nvme_v1_register_nvfs_dma_ops
    fn modules-dep $croot
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

# The wait for the container's own cleanup is 10 s of quiet (pod-end.h):
# poll the state file for up to 60 s.
wait_state_long() {
  local want=$1 i
  for i in $(seq 1 600); do
    [ "$(state)" = "$want" ] && { ok; return 0; }
    sleep 0.1
  done
  fail "state is $(state), expected $want; daemon output:"; sed 's/^/    /' "$tmp/daemon.log" | tail -20
  return 1
}
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
expect_log_soon() {
  local i; for i in $(seq 1 100); do grep -qE -- "$1" "$tmp/daemon.log" && { ok; return; }; sleep 0.1; done
  fail "daemon output lacks /$1/"
}
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
