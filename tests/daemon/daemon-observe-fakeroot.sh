#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Mode=observe (issue 23) on a fake node: the daemon binary with the fake
# kernel shim (tests/fakeroot), which logs every delete_module,
# init_module and finit_module it is asked for. Observe must follow the
# driver container through would-unload and would-swap with none of them,
# no /run/modprobe.d file and no pin; switching modes is a restart with the
# file changed: observe -> enforce acts from where the node is (unload now,
# or swap at once when the ready file is there), enforce -> observe while
# swapped leaves the node swapped and says so.
# The harness (fake node, container stand-in, daemon) has the shape of
# daemon-fakeroot.sh's; see there for each step.
# Env (set by meson): SWAPGUARD_DAEMON, FAKE_KERNEL_SO, FAKE_NODE.
set -uo pipefail

for v in SWAPGUARD_DAEMON FAKE_KERNEL_SO FAKE_NODE; do
  if [ -z "${!v:-}" ] || [ ! -e "${!v}" ]; then
    echo "SKIP: $v is not set or missing (run through meson test)"; exit 77
  fi
done
command -v python3 >/dev/null || { echo "SKIP: python3 needed to read the state file"; exit 77; }

tmp=$(mktemp -d /tmp/sg-observe-XXXXXX)
daemon_pid=
container_pid=
cleanup() {
  [ -n "$daemon_pid" ] && kill -9 "$daemon_pid" 2>/dev/null
  [ -n "$container_pid" ] && kill -9 "$container_pid" 2>/dev/null
  wait 2>/dev/null
  [ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
rel=6.1.0-fake-amd64
failures=0
checks=0
ID=3f1c2a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a3928170615e4d3
guard_file=/run/modprobe.d/nvme-swapguard.conf
# MESSAGE_IDs (daemon/publish/message-ids.h)
MODE=b2e45a2e64314c86be896e05b361ebb8
WOULD_UNLOAD=bd1424dce765462cb9474e8320270a45
WOULD_REFUSE=bc48985a4fb9495b8a0c188ecbb629bc
WOULD_LOAD=ee696b163748439c9b124d18ee368dc3
BLOCKED=d26a0597308b450481324cf4e89b659b
PINNED=a4e7c19ea7fa4bbda25cd3fc5b2dd7cf
UNLOADED=5f9add5ec6ba4bceb08dd44a1496e973

fail() { echo "FAIL [$case]: $*"; failures=$((failures + 1)); }
ok() { checks=$((checks + 1)); }
fn() { "$FAKE_NODE" "$root" "$@" || fail "fake-node $*"; }

key() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], "-"))' \
          "$root/run/nvme-swapguard/state.json" "$1" 2>/dev/null || echo none; }
state() { key state; }
doc_key() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], "-"))' \
              "$root/var/log/nvme-swapguard/status.json" "$1" 2>/dev/null || echo none; }

wait_state() {
  local want=$1 i
  for i in $(seq 1 100); do
    [ "$(state)" = "$want" ] && { ok; return 0; }
    sleep 0.1
  done
  fail "state is $(state), expected $want; daemon output:"; sed 's/^/    /' "$tmp/daemon.log" | tail -15
  return 1
}
expect_log() { grep -qE -- "$1" "$tmp/daemon.log" && ok || fail "daemon output lacks /$1/"; }
expect_no_log() { grep -qE -- "$1" "$tmp/daemon.log" && fail "daemon output has /$1/" || ok; }
expect_kernel() { grep -qE -- "$1" "$tmp/kernel.log" 2>/dev/null && ok || fail "kernel log lacks /$1/: $(cat "$tmp/kernel.log" 2>/dev/null)"; }
# The point of observe: not one module syscall.
expect_no_module_call() {
  grep -qE "delete_module|init_module" "$tmp/kernel.log" 2>/dev/null \
    && fail "observe made a module syscall: $(grep -E 'delete_module|init_module' "$tmp/kernel.log")" || ok
  [ -e "$root$guard_file" ] && fail "observe wrote $guard_file" || ok
}

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
  mkdir -p "$root/run/containers/storage/overlay-containers" "$root/etc/nvme-swapguard" "$root/var/log"
}

set_mode() { printf '[Swap]\nMode=%s\n' "$1" > "$root/etc/nvme-swapguard/nvme-swapguard.conf"; }

start_container() {
  sleep 600 &
  container_pid=$!
  local croot=/proc/$container_pid/root/lib/modules/$rel
  fn ko $croot extra/mlnx-nvme/host/nvme-core.ko nvme_core t10-pi - fake_taint=OE
  fn ko $croot extra/mlnx-nvme/host/nvme.ko nvme nvme-core - fake_taint=OE fake_exports=nvme_v1_register_nvfs_dma_ops
  fn modules-dep $croot
  fn container $container_pid $ID nvidia-network-operator mofed-container 000001ffffffffff
}

stop_container() {
  kill "$container_pid" 2>/dev/null; wait "$container_pid" 2>/dev/null; container_pid=
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
}

# The unit's restart after the MachineConfig changed the file.
restart_in() { stop_daemon; set_mode "$1"; start_daemon; }

ready() { mkdir -p "$root/run/mellanox/drivers" && touch "$root/run/mellanox/drivers/.driver-ready"; }

# --- observe through a whole swap, then enforce with the ready file there ---
case=observe-then-enforce-after-ready
new_node
set_mode observe
start_daemon
wait_state idle
[ "$(key mode)" = observe ] && ok || fail "state file mode is $(key mode)"
start_container
wait_state would-unload
expect_log "MESSAGE_ID=$WOULD_UNLOAD SWAPGUARD_STATE=would-unload SWAPGUARD_MODULE=nvme nvme_core .*SWAPGUARD_MODE=observe"
case "$(key would)" in "would unload nvme nvme_core for 3f1c2a9b8e7d") ok ;; *) fail "would: $(key would)" ;; esac
[ "$(doc_key mode)" = observe ] && ok || fail "status document mode is $(doc_key mode)"
expect_no_module_call
ready
wait_state would-swap
expect_log "MESSAGE_ID=$WOULD_LOAD SWAPGUARD_STATE=would-swap SWAPGUARD_MODULE=nvme_core nvme .*SWAPGUARD_MODE=observe"
case "$(doc_key would)" in "would load nvidia build (nvme_core nvme) from /proc/"*) ok ;; *) fail "document would: $(doc_key would)" ;; esac
expect_no_log "MESSAGE_ID=$PINNED"
expect_no_module_call
restart_in enforce
wait_state swapped
expect_kernel "delete_module nvme flags=.* -> 0"
expect_kernel "init_module nvme_core .*-> 0|finit_module nvme_core .*-> 0"
expect_log "Mode=enforce \(was observe\): acting from the current state.* MESSAGE_ID=$MODE .*SWAPGUARD_MODE=enforce"
[ "$(key mode)" = enforce ] && ok || fail "state file mode is $(key mode) after the switch"
[ "$(key would)" = - ] && ok || fail "enforce kept observe's would: $(key would)"
stop_daemon
stop_container

# --- observe -> enforce while the container waits for its ready file ---------
case=observe-then-enforce-before-ready
new_node
set_mode observe
start_daemon
start_container
wait_state would-unload
expect_no_module_call
restart_in enforce
wait_state unloaded-waiting-driver
expect_kernel "delete_module nvme flags=.* -> 0"
expect_log "MESSAGE_ID=$UNLOADED"
grep -q "install nvme /bin/false" "$root$guard_file" && ok || fail "enforce wrote no reload guard"
ready
wait_state swapped
stop_daemon
stop_container

# --- observe, blocked: would refuse, no pin; then a stop changes nothing -----
case=observe-blocked
new_node
fn mount nvme0n1p1 /var/lib/containers xfs
set_mode observe
start_daemon
start_container
wait_state blocked
expect_log "MESSAGE_ID=$WOULD_REFUSE SWAPGUARD_STATE=blocked SWAPGUARD_DEVICE=nvme0n1p1 SWAPGUARD_MOUNT_POINT=/var/lib/containers .*SWAPGUARD_MODE=observe"
expect_log "Observe: would refuse to unload the in-tree NVMe stack: .*/var/lib/containers"
expect_no_log "MESSAGE_ID=$BLOCKED"
case "$(key would)" in "would refuse: "*/var/lib/containers*) ok ;; *) fail "would: $(key would)" ;; esac
expect_no_log "MESSAGE_ID=$PINNED"
# The same node in enforce pins (the control: the assertion above can fail).
restart_in enforce
wait_state blocked
expect_log "MESSAGE_ID=$PINNED"
expect_log "MESSAGE_ID=$BLOCKED"
restart_in observe
wait_state blocked
stop_daemon
grep -qE "init_module|delete_module" "$tmp/kernel.log" 2>/dev/null && fail "a module syscall while blocked" || ok
stop_container

# --- observe stops while would-unload: nothing to restore -------------------
case=observe-stop
new_node
set_mode observe
start_daemon
start_container
wait_state would-unload
stop_daemon
[ "$(state)" = would-unload ] && ok || fail "after the stop the state is $(state)"
expect_no_module_call
stop_container

# --- enforce swapped, then observe: the node stays swapped, and says so ------
case=enforce-then-observe-swapped
new_node
set_mode enforce
start_daemon
start_container
ready
wait_state swapped
calls_before=$(grep -cE "delete_module|init_module" "$tmp/kernel.log")
restart_in observe
sleep 0.5 # nothing to wait for: the state stays; give the start its time
wait_state swapped
expect_log "Mode=observe \(was enforce\): the node stays as enforce left it.* MESSAGE_ID=$MODE SWAPGUARD_STATE=swapped SWAPGUARD_MODE=observe"
[ "$(key would)" = "left as enforce left it: swapped" ] && ok || fail "would: $(key would)"
stop_container
sleep 0.5
stop_daemon
calls_after=$(grep -cE "delete_module|init_module" "$tmp/kernel.log")
[ "$calls_before" = "$calls_after" ] && ok || fail "observe made module syscalls after the switch: $calls_before -> $calls_after"

# --- configuration ----------------------------------------------------------
case=check-config
printf '[Swap]\nMode=dry-run\n' > "$tmp/bad.conf"
out=$("$SWAPGUARD_DAEMON" --check-config --config "$tmp/bad.conf" 2>&1); rc=$?
[ $rc -eq 1 ] && ok || fail "--check-config of Mode=dry-run exited $rc"
grep -qF "$tmp/bad.conf:2: Mode=: \"dry-run\" is not enforce or observe" <<<"$out" && ok || fail "--check-config output: $out"

echo "daemon-observe-fakeroot: $checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
