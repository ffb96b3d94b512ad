#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Mode=observe on a fake node: the daemon binary with the fake
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
# The harness is lib-daemon-fakeroot.sh's, as daemon-fakeroot.sh's: waits of
# 20 s each by default (WAIT_STATE_SEC overrides), the container written by
# fake-node (start_node_container, $ID).
: "${WAIT_STATE_SEC:=20}"
# the status document goes under /var/log/nvme-swapguard
node_dirs=(/var/log)
. "$(dirname "$0")/lib-daemon-fakeroot.sh"
# MESSAGE_IDs (daemon/publish/message-ids.h)
MODE=b2e45a2e64314c86be896e05b361ebb8
WOULD_UNLOAD=bd1424dce765462cb9474e8320270a45
WOULD_REFUSE=bc48985a4fb9495b8a0c188ecbb629bc
WOULD_LOAD=ee696b163748439c9b124d18ee368dc3
BLOCKED=d26a0597308b450481324cf4e89b659b
PINNED=a4e7c19ea7fa4bbda25cd3fc5b2dd7cf
UNLOADED=5f9add5ec6ba4bceb08dd44a1496e973

# A key of the state file or the status document, "-" when absent (the state
# file's own state() is key state: "-", not "", when it has none).
key() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], "-"))' \
          "$root/run/nvme-swapguard/state.json" "$1" 2>/dev/null || echo none; }
state() { key state; }
doc_key() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], "-"))' \
              "$root/var/log/nvme-swapguard/status.json" "$1" 2>/dev/null || echo none; }

# The point of observe: not one module syscall.
expect_no_module_call() {
  grep -qE "delete_module|init_module" "$tmp/kernel.log" 2>/dev/null \
    && fail "observe made a module syscall: $(grep -E 'delete_module|init_module' "$tmp/kernel.log")" || ok
  [ -e "$root$guard_file" ] && fail "observe wrote $guard_file" || ok
}

set_mode() { printf '[Swap]\nMode=%s\n' "$1" > "$root/etc/nvme-swapguard/nvme-swapguard.conf"; }
start_container() { start_node_container; }

# The unit's restart after the MachineConfig changed the file.
restart_in() { stop_daemon; set_mode "$1"; start_daemon; }

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
[ -e "$root$guard_file" ] && grep -q "^install nvme test ! -e $guard_file && " "$root$gate_file" && ok || fail "enforce wrote no reload block"
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
