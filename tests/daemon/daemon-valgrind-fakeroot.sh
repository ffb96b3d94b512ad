#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What the daemon keeps per driver container is released when it is forgotten
# (nothing grows over a node's life): the daemon under valgrind's leak check
# on a fake node (tests/fakeroot; or LeakSanitizer, see below), over a node's life in small: a crash loop of driver
# containers in one pod (each restart a new swap to its own build), then the
# pod's end taken back (RESTORE_DRIVER_ON_POD_TERMINATION=true), then a stop.
# No error and no definite or indirect leak. The helpers are
# lib-daemon-fakeroot.sh's. RESTARTS= sets the loop's length (4).
# Env (set by meson): SWAPGUARD_DAEMON, FAKE_KERNEL_SO, FAKE_NODE.
set -uo pipefail
. "$(dirname "$0")/lib-daemon-fakeroot.sh"

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
# lib-daemon-fakeroot.sh's start_daemon, under the leak checker (its log in
# $tmp/leaks.log*).
start_daemon() {
  local run=()
  [ $checker = valgrind ] && run=(valgrind --quiet --log-file="$tmp/leaks.log" --error-exitcode=99 --leak-check=full
                                  --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect)
  NVME_SWAPGUARD_ROOT=$root FAKE_KERNEL_ROOT=$root FAKE_KERNEL_LOG=$tmp/kernel.log LD_PRELOAD=$FAKE_KERNEL_SO \
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=1:log_path=$tmp/leaks.log \
    "${run[@]}" "$SWAPGUARD_DAEMON" --root "$root" --log-target stderr >>"$tmp/daemon.log" 2>&1 &
  daemon_pid=$!
}
# Until the daemon follows the container (or cannot: the syscall is unknown,
# or its privileged reader, which looks at and watches the store and opens
# its files, is gone; the daemon then says so and stops: manager-reader.c).
reader_gone='\(config.json, ignoring the container: \|(container-store-dir) for now: \|Container store .*: cannot watch [^ ]* (\)\(Broken pipe\|Transport endpoint is not connected\|Connection reset by peer\)\|The privileged reader (pid [0-9]*) is gone'
unsupported() {
  local i
  for i in $(seq 1 600); do
    grep -q "runs as pid" "$tmp/daemon.log" 2>/dev/null && return 0
    grep -q "unhandled amd64-linux syscall: 434" "$tmp/daemon.log" "$tmp"/leaks.log* 2>/dev/null && break
    grep -q "$reader_gone" "$tmp/daemon.log" 2>/dev/null && break
    sleep 0.1
  done
  if [ $checker = valgrind ] && grep -q "$reader_gone" "$tmp/daemon.log" 2>/dev/null; then
    echo "SKIP: the daemon's privileged reader does not outlive valgrind (its seccomp filter kills the calls" \
         "valgrind makes in it), so CRI-O's store cannot be watched nor a config.json opened under it; run this case on a" \
         "b_sanitize=address build (LeakSanitizer)"
    exit 77
  fi
  if [ $checker = valgrind ] && grep -q "unhandled amd64-linux syscall: 434" "$tmp/daemon.log" "$tmp"/leaks.log* 2>/dev/null; then
    echo "SKIP: this valgrind does not know pidfd_open (syscall 434): the daemon cannot follow a container" \
         "under it; run this case on a b_sanitize=address build (LeakSanitizer)"
    exit 77
  fi
}
# The daemon under valgrind is slow: every wait of the loop gets 180 s (the
# 1200 polls of 0.1 s it had before the deadline, with their python3 runs).
wait_state_long() { WAIT_STATE_SEC=180 wait_state "$@"; }
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
