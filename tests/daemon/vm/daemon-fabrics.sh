#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# NVMe over Fabrics across the swap, on one boot of a real kernel
# (tests/vm, systemd mode, --oot, the shipped unit, the NVIDIA-shaped
# stand-in and its fake driver container, lib-swapguard.sh), a node with
# its PCIe drive and an NVMe/TCP connection to a target on 127.0.0.1 inside
# the guest (tests/vm/lib-nvmet.sh; FIELD-NOTES section 11):
#  1. the fabrics namespace mounted: the daemon is blocked, naming its head
#     and the mount point; unmounted, the unload goes ahead and the journal
#     says which connection it drops and will reconnect;
#  2. the daemon killed between the unload and the reconnect: restarted by
#     systemd, it still shows the pending connection (the record on disk);
#  3. the swap: the connection live again on the container's nvme_tcp
#     (taint O, holding mlx_compat), its namespace back (found by NSID and
#     UUID, whatever its name) with the file written before the swap; the
#     state file and the status document say "reconnected", the record is
#     gone;
#  4. the restore path: a new driver container takes the build out (the
#     connection drops again) and exits before its ready file: the in-tree
#     stack comes back and the connection with it, through the in-tree
#     nvme_tcp;
#  5. a container build without nvme_tcp (sources mode: the tree exists only
#     after its compile, so the check runs before the load): no-build, the
#     in-tree stack put back and the connection reconnected through it.
#  6. a target that refuses across the swap (its subsystem unexported while
#     the node is between drivers) and is exported again after it: the
#     connect after the load is refused, told as pending with its next try,
#     and the connection comes back by itself on a later try (every
#     reconnect_delay, 10 s by default);
#  7. a listener that accepts TCP and never answers the NVMe/TCP handshake
#     while nvme-swapguard-fabrics.service connects: the daemon's loop is
#     not the one waiting: `systemctl stop nvme-swapguard` completes (its
#     time printed) while the connect hangs; started again with the target
#     back, the daemon asks for the connect of the pending record and the
#     connection is live again.
# Before them, on the same boot: the reload gate on this kernel (flagged,
# `modprobe nvme` and a load by modalias fail and load nothing; unflagged
# they load the in-tree stack), and the shipped unit run with a probe in
# place of the daemon (every way to root or to a secret its identity must
# not have; lib-swapguard.sh, sg_probe_unit).
# The capture and the connects are nvme-swapguard-fabrics.service's (its
# path unit on the daemon's request), installed from the build as the
# daemon's unit is. No DH-HMAC-CHAP secret in the journal, the state file or
# the status document is checked by the fake-node suite
# (daemon-fabrics-fakeroot.sh): Debian's 6.1 has no in-band authentication.
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
. "$VM_HARNESS/lib-nvmet.sh"
declare -F sg_container_compiled >/dev/null || vm_skip "needs lib-swapguard.sh's driver container"
# A target in the same kernel must not hold the host stack: on 6.12 nvmet
# links nvme_core (CONFIG_NVME_TARGET_PASSTHRU=y), so the case needs the
# passthru-less target of tests/vm/build-oot-nvmet.sh there (run-fabrics-case.sh
# builds it).
nvmet_target_usable || vm_skip "nvmet of $VM_KVER depends on nvme_core (passthru) and $NVMET_OOT_DIR has no target without it (tests/vm/build-oot-nvmet.sh)"

FAB_MNT=/mnt/fabrics
state_fabrics() { # FIELD: the first connection's FIELD in the state file ("" when none)
	/usr/bin/python3 -S -c 'import json, sys
f = json.load(open(sys.argv[1])).get("fabrics") or [{}]
print(f[0].get(sys.argv[2], ""))' "$SG_STATE_FILE" "$1" 2>/dev/null
}
# wait_fabrics_live SECONDS: the connection is live again (its head back).
wait_fabrics_live() {
	local deadline=$((SECONDS + $1))
	while [ $SECONDS -lt $deadline ]; do
		[ "$(fabrics_ctrl_state)" = live ] && fabrics_head >/dev/null && return 0
		vm_nap 0.2
	done
	return 1
}
# check_data WHAT: the namespace is back under its UUID and the file is there.
check_data() {
	local head
	head=$(fabrics_wait_head 30) || { vm_fail "$1: no head for $NVMET_NQN"; return 1; }
	assert_eq "$NVMET_NS_UUID" "$(fabrics_head_uuid "$head")" "$1: the namespace's UUID ($head)"
	mount_fs "$head" "$FAB_MNT" ro || { vm_fail "$1: mount $head"; return 1; }
	drop_caches
	if verify_written "$FAB_MNT/data"; then vm_pass "$1: the data written before the swap reads back"
	else vm_fail "$1: the data written before the swap is not there"; fi
	umount "$FAB_MNT"
}

nvmet_unexport() { rm -f "$NVMET_CFS/ports/1/subsystems/$NVMET_NQN"; }
nvmet_export() { ln -s "$NVMET_CFS/subsystems/$NVMET_NQN" "$NVMET_CFS/ports/1/subsystems/$NVMET_NQN"; }
# A new driver container (build with nvme_tcp) that unloads the build loaded now.
new_container_unloaded() {
	sg_container_stop
	sg_container_remove
	sg_container_new mofed-container nvidia-network-operator
	sg_container_start
	sg_wait_state unloaded-waiting-driver 120
	assert_eq absent "$(fabrics_ctrl_state)" "the connection after the unload"
}

# Before anything holds the stack: the reload gate on this kernel (lib-swapguard.sh).
sg_reload_gate_check
sg_step "0. The target on 127.0.0.1 and the node's connection (in-tree nvme_tcp)"
assert_ok nvmet_tcp_target_up 64
assert_ok nvmet_tcp_connect
head=$(fabrics_head) || vm_fatal "no fabrics head"
ctrl=$(fabrics_ctrl)
vm_log "connection: $ctrl, head $head"
assert_ok mkfs_ext4 "$head"
# The daemon's identity taken over, with /dev/nvme-fabrics and a fabrics
# controller present (lib-swapguard.sh), before the daemon's first start.
sg_probe_unit
sg_setup
# Mounted once the daemon runs, with / shared as on a node (sg_setup): a
# mount made before would stay in the unit's private mount namespace after
# the host's umount, claiming the namespace (FIELD-NOTES section 11).
mount_fs "$head" "$FAB_MNT" || vm_fatal "mount $head"
write_unsynced "$FAB_MNT/data" 512
sync

sg_step "1. The fabrics namespace mounted: blocked; unmounted: unloaded, the drop announced"
sg_container_new mofed-container nvidia-network-operator
sg_container_start
sg_wait_state blocked
assert_journal BLOCKED SWAPGUARD_DEVICE="${head#/dev/}" SWAPGUARD_MOUNT_POINT="$FAB_MNT"
assert_loaded nvme_tcp
assert_eq live "$(fabrics_ctrl_state)" "the connection while blocked"
umount "$FAB_MNT"
sg_wait_state unloaded-waiting-driver
assert_not_loaded nvme_tcp
assert_eq absent "$(fabrics_ctrl_state)" "the connection after the unload (nvme_tcp's exit deletes it)"
assert_journal FABRICS_DROP SWAPGUARD_FABRICS_TRANSPORT=tcp SWAPGUARD_FABRICS_ADDRESS=127.0.0.1:4420 \
	SWAPGUARD_FABRICS_NQN="$NVMET_NQN"
assert_file /run/nvme-swapguard-fabrics/record.json
assert_eq pending "$(state_fabrics outcome)" "the state file's connection"

sg_step "2. The daemon killed between the unload and the reconnect"
first=$(sg_main_pid)
kill -KILL "$first"
sg_wait_restarted "$first" || :
assert_ne "$first" "$(sg_main_pid)" "MainPID after the restart"
sg_wait_state unloaded-waiting-driver
assert_eq pending "$(state_fabrics outcome)" "the restarted daemon's connection"

sg_step "3. The swap: the connection back on the container's nvme_tcp"
sg_container_compiled
sg_ready
sg_wait_state swapped 120
sg_assert_oot
assert_loaded nvme_tcp
assert_contains "$(module_taint nvme_tcp)" "O" "nvme_tcp taint (the container's build)"
sg_assert_mlx_compat_holders nvme_tcp nvme_fabrics
# The connect is the fabrics unit's, asked for after the load: its answer comes after "swapped".
wait_journal 60 FABRICS_RECONNECTED SWAPGUARD_FABRICS_OUTCOME=reconnected SWAPGUARD_FABRICS_ADDRESS=127.0.0.1:4420
wait_fabrics_live 30 || :
assert_eq live "$(fabrics_ctrl_state)" "the connection after the swap"
assert_no_journal FABRICS_LOST
assert_eq reconnected "$(state_fabrics outcome)" "the state file's connection after the swap"
assert_no_file /run/nvme-swapguard-fabrics/record.json
sleep 2 # the status document is written when the daemon is idle
doc_fabrics() { # the status document's first connection's outcome, and how many warnings
	/usr/bin/python3 -S -c 'import json, sys
d = json.load(open(sys.argv[1]))
print((d.get("fabrics") or [{}])[0].get("outcome", ""), len(d.get("fabrics_warnings", [None])))' \
		/var/log/nvme-swapguard/status.json 2>/dev/null
}
assert_eq "reconnected 0" "$(doc_fabrics)" "the status document's connection and warnings"
# The namespaces are judged right after the load, before the fabrics unit's
# connect answers: the fabrics one may be "not back (yet)" then, and "Later:
# all ... are back" once the connection is.
if journalctl -u "$SG_UNIT" -o cat --no-pager -q | grep -q "is not back (yet)"; then
	journalctl -u "$SG_UNIT" -o cat --no-pager -q | grep -q "Later: all .* are back" &&
		vm_pass "every namespace back after the swap (later, with the connection)" ||
		vm_fail "a namespace not back after the swap: $(journalctl -u "$SG_UNIT" -o cat --no-pager -q | grep 'not back')"
else
	vm_pass "every namespace back after the swap"
fi
check_data "after the swap"

sg_step "4. A new container takes the build out and exits before ready: restore, reconnect in-tree"
sg_container_stop
sg_container_remove
sg_container_new mofed-container nvidia-network-operator
sg_container_start
sg_wait_state unloaded-waiting-driver 120
assert_eq absent "$(fabrics_ctrl_state)" "the connection after the second unload"
kill -KILL "$SG_CPID"
wait "$SG_CPID" 2>/dev/null
SG_CPID=
sg_wait_state restored 120
sg_assert_in_tree
assert_not_contains "$(module_taint nvme_tcp)" "O" "nvme_tcp taint after the restore (in-tree)"
wait_fabrics_live 60 || :
assert_eq live "$(fabrics_ctrl_state)" "the connection after the restore"
[ "$(sg_journal_entries FABRICS_RECONNECTED | grep -c 'after the restore')" -ge 1 ] &&
	vm_pass "journal: reconnected after the restore" || vm_fail "no reconnect after the restore: $(sg_journal_entries FABRICS_RECONNECTED)"
check_data "after the restore"
sg_container_remove

sg_step "5. A container build without nvme_tcp: no-build, in-tree stack and connection back"
sg_container_new mofed-container nvidia-network-operator
rm -f "$SG_CROOT/.build-output/lib/modules/$VM_KVER/extra/mlnx-nvme/host/nvme-tcp.ko"
depmod -b "$SG_CROOT/.build-output" "$VM_KVER"
sg_container_start
sg_wait_state unloaded-waiting-driver 120
sg_container_compiled
sg_ready
sg_wait_state_any() { # STATE... : one of them within 120 s
	local deadline=$((SECONDS + 120)) s
	while [ $SECONDS -lt $deadline ]; do
		for s in "$@"; do [ "$(sg_state)" = "$s" ] && { vm_pass "daemon state is $s"; return 0; }; done
		vm_nap 0.2
	done
	vm_fail "daemon state is '$(sg_state)', expected one of $*"
}
sg_wait_state_any no-build restored
assert_journal FABRICS_NO_TRANSPORT SWAPGUARD_MODULE=nvme_tcp
sg_assert_in_tree
wait_fabrics_live 60 && vm_pass "the connection is live again (in-tree)" || vm_fail "the connection is $(fabrics_ctrl_state)"
check_data "after the no-build"
assert_not_contains "$(sg_journal_text)" "DHHC-1" "no DH-HMAC-CHAP secret in the journal"

sg_step "6. A target refusing across the swap, exported again after it: back on a later try"
new_container_unloaded
nvmet_unexport
sg_container_compiled
sg_ready
sg_wait_state swapped 120
wait_journal 60 FABRICS_PENDING SWAPGUARD_FABRICS_ERROR_KIND=refused SWAPGUARD_FABRICS_ADDRESS=127.0.0.1:4420
assert_ne live "$(fabrics_ctrl_state)" "the connection while its target refuses"
assert_contains "$(systemctl show -P StatusText "$SG_UNIT")" "pending" "STATUS= while pending"
vm_log "STATUS=$(systemctl show -P StatusText "$SG_UNIT")"
exported=$SECONDS
nvmet_export || vm_fail "export again"
if wait_fabrics_live 120; then
	vm_pass "the connection is back by itself $((SECONDS - exported)) s after its target was exported again"
else
	vm_fail "the connection is $(fabrics_ctrl_state) 120 s after its target came back"
fi
wait_journal 30 FABRICS_RECONNECTED SWAPGUARD_FABRICS_OUTCOME=reconnected
[ "$(sg_journal_entries FABRICS_RECONNECTED | grep -c 'on a later try')" -ge 1 ] &&
	vm_pass "journal: connected again on a later try" || vm_fail "no later try: $(sg_journal_entries FABRICS_RECONNECTED)"
check_data "after the later try"

sg_step "7. A listener that never answers while the unit connects: the daemon stops at once"
new_container_unloaded
nvmet_unexport
/usr/bin/python3 -S -c '
import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 4420))
s.listen(64)
held = []
while True:
    held.append(s.accept()[0])  # accepted, never answered
' &
silent=$!
sleep 1
sg_container_compiled
sg_ready
sg_wait_state swapped 120
deadline=$((SECONDS + 60))
while [ $SECONDS -lt $deadline ] && [ "$(systemctl is-active nvme-swapguard-fabrics.service)" != activating ]; do
	vm_nap 0.2
done
assert_eq activating "$(systemctl is-active nvme-swapguard-fabrics.service)" "the fabrics unit while it connects"
t0=$(date +%s%N)
systemctl stop "$SG_UNIT"
t1=$(date +%s%N)
vm_log "systemctl stop $SG_UNIT took $(( (t1 - t0) / 1000000 )) ms while the connect hangs"
assert_eq inactive "$(systemctl is-active "$SG_UNIT")" "the daemon after its stop"
assert_no_file "$SG_GUARD"
kill "$silent" 2>/dev/null
wait "$silent" 2>/dev/null
nvmet_export || vm_fail "export again"
sg_start
if wait_fabrics_live 180; then
	vm_pass "the connection is live again after the restart"
else
	vm_fail "the connection is $(fabrics_ctrl_state) after the restart"
	journalctl -u nvme-swapguard-fabrics -o cat --no-pager -q | tail -n 20 | sed 's/^/#   /'
fi

sg_show_journal
journalctl -u nvme-swapguard-fabrics -o cat --no-pager -q | tail -n 40 | sed 's/^/#   /'
sg_container_stop
sg_stop
nvmet_tcp_target_down
