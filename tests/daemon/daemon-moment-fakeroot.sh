#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# UnloadAt=auto on a fake node: the moment the daemon chooses for a driver
# container from what its root holds (its openibd's check_if_ok_to_stop,
# its entrypoint) and what is loaded, said in the journal with the rule.
# A current image on a first swap: at the ready file (no unload at its
# start); a 26.07-style openibd that stops on nvme, or an older image that
# loads nvme itself: at its start.
# Env (set by meson): SWAPGUARD_DAEMON, FAKE_KERNEL_SO, FAKE_NODE.
set -uo pipefail
: "${WAIT_STATE_SEC:=20}"
. "$(dirname "$0")/lib-daemon-fakeroot.sh"

MID_UNLOAD_MOMENT=30f9407160bf46d9b71c7e43ec5a09cb

auto_config() { printf '[Swap]\nUnloadAt=auto\n' > "$root/etc/nvme-swapguard/nvme-swapguard.conf"; }

# The container's root, before its store entry tells the daemon it started:
# $1 openibd shape (2604: check_if_ok_to_stop without nvme; 2607: with
# it), $2 entrypoint (current: openibd restart only; older: then modprobe
# nvme). Its init runs `/bin/bash /root/entrypoint.sh`.
shape_container() {
  local r=$root/proc/$container_pid/root list="ib_isert nvme_rdma nvmet_rdma rpcrdma xprtrdma ib_srpt"
  [ "$1" = 2607 ] && list="$list nvme"
  mkdir -p "$r/usr/share/mlnx_ofed" "$r/root" "$r/bin"
  printf 'check_if_ok_to_stop()\n{\n    for mod in %s\n    do\n        :\n    done\n}\n' "$list" \
    > "$r/usr/share/mlnx_ofed/mod_load_funcs"
  printf '#!/bin/bash\n/etc/init.d/openibd restart\n' > "$r/root/entrypoint.sh"
  [ "$2" = older ] && printf 'modprobe nvme\nmodprobe nvme-rdma\n' >> "$r/root/entrypoint.sh"
  printf '\177ELF' > "$r/bin/bash"
  printf '/bin/bash\0/root/entrypoint.sh\0' > "$root/proc/$container_pid/cmdline"
}

# start_node_container, its root shaped ($1, $2) before the store entry.
start_shaped_container() {
  sleep 600 &
  container_pid=$!
  fake_node_nvidia_build "/proc/$container_pid/root/lib/modules/$rel"
  shape_container "$1" "$2"
  fn container $container_pid $ID
}

# --- a current image, first swap: at the ready file -------------------------
case_auto_at_ready() {
new_node
auto_config
start_daemon
wait_state idle || return 1
start_shaped_container 2604 current
wait_log "MESSAGE_ID=$MID_UNLOAD_MOMENT" || { fail "no moment reported"; return 1; }
expect_log "MESSAGE_ID=$MID_UNLOAD_MOMENT .*SWAPGUARD_UNLOAD_AT=driver-ready SWAPGUARD_MOMENT_RULE=safe-at-ready"
expect_log "goes at its ready file \\(drives up through its compile\\): first swap"
wait_state container-seen || return 1
expect_no_kernel "delete_module"
ready
wait_state swapped || return 1
expect_kernel "delete_module nvme flags=.* -> 0"
expect_kernel "init_module nvme_core .*-> 0|finit_module nvme_core .*-> 0"
stop_daemon
stop_container
}
run_case auto-at-ready

# --- 26.07's openibd stops on a loaded nvme: at the container's start --------
case_auto_openibd_lists_nvme() {
new_node
auto_config
start_daemon
wait_state idle || return 1
start_shaped_container 2607 current
wait_state unloaded-waiting-driver || return 1
expect_log "MESSAGE_ID=$MID_UNLOAD_MOMENT .*SWAPGUARD_UNLOAD_AT=container-start SWAPGUARD_MOMENT_RULE=openibd-lists-nvme"
expect_log "openibd read from /usr/share/mlnx_ofed/mod_load_funcs"
expect_kernel "delete_module nvme flags=.* -> 0"
stop_daemon
stop_container
}
run_case auto-openibd-lists-nvme

# --- an older image loads nvme itself: at the container's start --------------
case_auto_older_image() {
new_node
auto_config
start_daemon
wait_state idle || return 1
start_shaped_container 2604 older
wait_state unloaded-waiting-driver || return 1
expect_log "MESSAGE_ID=$MID_UNLOAD_MOMENT .*SWAPGUARD_UNLOAD_AT=container-start SWAPGUARD_MOMENT_RULE=image-loads-nvme"
stop_daemon
stop_container
}
run_case auto-older-image

echo "daemon-moment-fakeroot: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
