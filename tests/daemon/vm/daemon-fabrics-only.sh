#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# NVMe over Fabrics on a node without any PCIe NVMe (layout
# none), one boot of a real kernel (systemd mode, --oot, the shipped unit,
# lib-swapguard.sh's driver container), its only NVMe an NVMe/TCP
# connection to a target on 127.0.0.1 in the guest (tests/vm/lib-nvmet.sh):
#  A. the daemon: the stack here is nvme_core + nvme_fabrics + nvme_tcp (no
#     nvme: no PCI function asks for it); it swaps to the container's
#     build of those and reconnects, data intact;
#  B. the CLI, the daemon stopped: `unload` records the connection; `load
#     --from` a tree without nvme_tcp refuses (exit 3, naming it) and
#     touches nothing; `restore` reconnects through the in-tree nvme_tcp;
#     `load --from` the container's tree reconnects through its nvme_tcp;
#     `status` lists the connection; a mounted fabrics namespace makes
#     `unload` refuse (exit 3) and leaves no record.
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
. "$VM_HARNESS/lib-nvmet.sh"
declare -F sg_container_compiled >/dev/null || vm_skip "needs lib-swapguard.sh's driver container"
nvmet_target_usable || vm_skip "nvmet of $VM_KVER depends on nvme_core (passthru) and $NVMET_OOT_DIR has no target without it (tests/vm/build-oot-nvmet.sh)"
[ -z "$(for d in /sys/bus/pci/devices/*; do [ "$(cat "$d/class" 2>/dev/null)" = 0x010802 ] && echo "$d"; done)" ] ||
	vm_fatal "layout has a PCIe NVMe function: run with -l none"

FAB_MNT=/mnt/fabrics
RECORD=/run/nvme-swapguard-fabrics/record.json
tree=$VM_OOT_ROOT/lib/modules/$VM_KVER
kmod() {
	KMOD_OUT=$("$VM_KMOD_HELPER" "$@" 2>&1)
	KMOD_RC=$?
	vm_log "\$ nvme-swapguard-kmod $* -> exit $KMOD_RC"
	printf '%s\n' "$KMOD_OUT" | sed 's/^/#   /'
}
check_data() {
	local head
	head=$(fabrics_wait_head 30) || { vm_fail "$1: no head for $NVMET_NQN"; return 1; }
	assert_eq live "$(fabrics_ctrl_state)" "$1: the connection"
	assert_eq "$NVMET_NS_UUID" "$(fabrics_head_uuid "$head")" "$1: the namespace's UUID ($head)"
	mount_fs "$head" "$FAB_MNT" ro || { vm_fail "$1: mount $head"; return 1; }
	drop_caches
	if verify_written "$FAB_MNT/data"; then vm_pass "$1: the data written before reads back"
	else vm_fail "$1: the data written before is not there"; fi
	umount "$FAB_MNT"
}

sg_step "A. The daemon on a fabrics-only node"
assert_ok nvmet_tcp_target_up 64
assert_ok nvmet_tcp_connect
head=$(fabrics_head) || vm_fatal "no fabrics head"
assert_ok mkfs_ext4 "$head"
assert_not_loaded nvme
# sg_setup without its in-tree nvme check: there is no nvme here.
sg_require
mkdir -p "$SG_STORE"
chmod 0700 "${SG_STORE%/overlay-containers}"
sg_start_dbus && SG_BUS=1
sg_install_unit
sg_start
sg_wait_state idle
mount_fs "$head" "$FAB_MNT" || vm_fatal "mount $head"
write_unsynced "$FAB_MNT/data" 256
sync
umount "$FAB_MNT"
sg_container_new mofed-container nvidia-network-operator
sg_container_start
sg_wait_state unloaded-waiting-driver
assert_eq "" "$(loaded_of nvme_core nvme_fabrics nvme_tcp)" "the stack after the unload"
sg_container_compiled
sg_ready
sg_wait_state swapped 120
assert_contains "$(module_taint nvme_core)" O "nvme_core taint (the container's build)"
assert_contains "$(module_taint nvme_tcp)" O "nvme_tcp taint (the container's build)"
assert_not_loaded nvme
sg_show_journal
# the connect unit answers after the swap is reported (seen later under load)
wait_journal 60 FABRICS_RECONNECTED SWAPGUARD_FABRICS_OUTCOME=reconnected
check_data "after the daemon's swap"
sg_stop
sg_container_stop

sg_step "B. The CLI with a connection"
kmod unload
assert_eq 0 "$KMOD_RC" "unload"
assert_file "$RECORD"
assert_eq absent "$(fabrics_ctrl_state)" "the connection after unload"
mkdir -p /tmp/notcp
oot_root_without /tmp/notcp nvme_tcp || vm_fatal "a tree without nvme_tcp"
kmod load --from "/tmp/notcp/lib/modules/$VM_KVER"
assert_eq 3 "$KMOD_RC" "load --from a tree without nvme_tcp"
assert_contains "$KMOD_OUT" "nvme_tcp" "the refusal names the transport"
assert_eq "" "$(loaded_of nvme_core nvme_fabrics nvme_tcp)" "nothing loaded by the refused load"
kmod restore
assert_eq 0 "$KMOD_RC" "restore"
assert_not_contains "$(module_taint nvme_tcp)" O "nvme_tcp taint after restore (in-tree)"
assert_no_file "$RECORD"
check_data "after the CLI's restore"
kmod unload
assert_eq 0 "$KMOD_RC" "unload"
kmod load --from "$tree"
assert_eq 0 "$KMOD_RC" "load --from the container's tree"
assert_contains "$(module_taint nvme_tcp)" O "nvme_tcp taint after load --from"
assert_contains "$KMOD_OUT" "reconnected as" "load --from reports the reconnect"
check_data "after the CLI's load --from"
kmod status
assert_contains "$KMOD_OUT" "tcp 127.0.0.1:4420 $NVMET_NQN" "status lists the connection"
head=$(fabrics_head)
mount_fs "$head" "$FAB_MNT" ro || vm_fatal "mount $head"
kmod unload
assert_eq 3 "$KMOD_RC" "unload with the fabrics namespace mounted"
assert_contains "$KMOD_OUT" "${head#/dev/}" "the refusal names the device"
assert_no_file "$RECORD"
assert_eq live "$(fabrics_ctrl_state)" "the connection after the refused unload"
umount "$FAB_MNT"
nvmet_tcp_target_down
