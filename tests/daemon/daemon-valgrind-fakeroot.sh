#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What the daemon keeps per driver container is released when it is forgotten
# (issue 20 item 4): the daemon under valgrind's leak check on a fake node
# (tests/fakeroot; or LeakSanitizer, see below), over a node's life in small: a crash loop of driver
# containers in one pod (each restart a new swap to its own build), then the
# pod's end taken back (RESTORE_DRIVER_ON_POD_TERMINATION=true), then a stop.
# No error and no definite or indirect leak. The helpers are
# daemon-lifecycle-fakeroot.sh's. RESTARTS= sets the loop's length (4).
# Env (set by meson): SWAPGUARD_DAEMON, FAKE_KERNEL_SO, FAKE_NODE.
set -uo pipefail

for v in SWAPGUARD_DAEMON FAKE_KERNEL_SO FAKE_NODE; do
  if [ -z "${!v:-}" ] || [ ! -e "${!v}" ]; then
    echo "SKIP: $v is not set or missing (run through meson test)"; exit 77
  fi
done
command -v python3 >/dev/null || { echo "SKIP: python3 needed to read the state file"; exit 77; }

tmp=$(mktemp -d /tmp/sg-valgrind-XXXXXX)
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

# Two leak checkers, whichever the build allows: valgrind on a plain build,
# LeakSanitizer (ASan's exit check) on a b_sanitize=address build, which
# valgrind cannot run. Valgrind 3.19 (Debian 12) does not know pidfd_open
# (syscall 434): the daemon then cannot follow a container, and the case
# skips saying so (an ASan build checks it).
if readelf -d "$SWAPGUARD_DAEMON" 2>/dev/null | grep "NEEDED.*libasan" >/dev/null; then
  checker=lsan
else
  command -v valgrind >/dev/null || { echo "SKIP: valgrind not installed (or build with b_sanitize=address)"; exit 77; }
  checker=valgrind
fi
start_daemon() {
  local run=()
  [ $checker = valgrind ] && run=(valgrind --quiet --log-file="$tmp/leaks.log" --error-exitcode=99 --leak-check=full
                                  --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect)
  NVME_SWAPGUARD_ROOT=$root FAKE_KERNEL_ROOT=$root FAKE_KERNEL_LOG=$tmp/kernel.log LD_PRELOAD=$FAKE_KERNEL_SO \
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=1:log_path=$tmp/leaks.log \
    "${run[@]}" "$SWAPGUARD_DAEMON" --root "$root" --log-target stderr >>"$tmp/daemon.log" 2>&1 &
  daemon_pid=$!
}
# Until the daemon follows the container (or cannot: the syscall is unknown).
unsupported() {
  local i
  for i in $(seq 1 600); do
    grep -q "runs as pid" "$tmp/daemon.log" 2>/dev/null && return 0
    grep -q "unhandled amd64-linux syscall: 434" "$tmp/daemon.log" "$tmp"/leaks.log* 2>/dev/null && break
    sleep 0.1
  done
  if [ $checker = valgrind ] && grep -q "unhandled amd64-linux syscall: 434" "$tmp/daemon.log" "$tmp"/leaks.log* 2>/dev/null; then
    echo "SKIP: this valgrind does not know pidfd_open (syscall 434): the daemon cannot follow a container" \
         "under it; run this case on a b_sanitize=address build (LeakSanitizer)"
    exit 77
  fi
}
wait_state_long() {
  local want=$1 i
  for i in $(seq 1 1200); do
    [ "$(state)" = "$want" ] && { ok; return 0; }
    sleep 0.1
  done
  fail "state is $(state), expected $want; daemon output:"; sed 's/^/    /' "$tmp/daemon.log" | tail -20
  return 1
}
ENV_TRUE='"ENABLE_NFSRDMA=true","RESTORE_DRIVER_ON_POD_TERMINATION=true"'

case=valgrind-restart-loop
new_node
start_daemon
for i in $(seq 1 "${RESTARTS:-4}"); do
  id=$(printf '%04x' "$i")${ID_A:4}
  start_container "$id" build "$ENV_TRUE"
  [ "$i" = 1 ] && unsupported
  wait_state_long unloaded-waiting-driver
  ready
  wait_state_long swapped
  # a crash: kubelet restarts it in the same pod at once (the next round),
  # its ready file gone with it
  unready
  kill -KILL "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null
  rm -rf "$root/run/containers/storage/overlay-containers/$id"
done
# the last one's pod ends for good: the daemon takes its build back
wait_state_long restored
expect_log "MESSAGE_ID=2f196a6be30a4229ac05caa9322f6a37"
kill -TERM "$daemon_pid"; wait "$daemon_pid"; rc=$?
daemon_pid=
[ "$rc" -eq 0 ] && ok || fail "the daemon under $checker exited $rc"
if grep -qE "definitely lost|indirectly lost|Invalid (read|write|free)|ERROR: LeakSanitizer|ERROR: AddressSanitizer" \
     "$tmp"/leaks.log* 2>/dev/null; then
  fail "$checker:"; cat "$tmp"/leaks.log* | sed 's/^/    /' | head -80
else
  ok
fi
echo "leak check: $checker, ${RESTARTS:-4} restarts and a pod's end"
echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
