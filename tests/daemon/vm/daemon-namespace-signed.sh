#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Who holds a namespace, in every mount namespace, and a kernel that loads
# only signed modules; one boot, the daemon as its shipped unit:
# 1. A mount held only in another mount namespace: the namespace is mounted
#    on the host, a service starts with PrivateMounts=yes while it is (this
#    VM's / is still private, as on a machine whose / was not shared yet, so
#    the service's copy does not follow the host), the host unmounts. The
#    driver container starts: the daemon stays blocked and its journal
#    names the mount, the namespace and the service's process. When the
#    service stops the daemon looks again by itself (the process's exit)
#    and unloads.
# 2. A kernel that loads only signed modules: once the container's
#    `openibd restart` has loaded its mlx_compat, module signature
#    enforcement is switched on (/sys/module/module/parameters/sig_enforce,
#    the same flag module.sig_enforce=1 sets at boot; booting with it would
#    refuse the container's unsigned mlx_compat before the daemon's load
#    could be seen, the CLI's case vm-guard-signed-only boots so). At the
#    ready file the kernel refuses NVIDIA's unsigned build: the daemon's
#    FAILED entry says the kernel loads only signed modules and the
#    remedies, it restores the in-tree stack (Debian's, signed) and the
#    namespace comes back with its data.
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
sg_require

dev=$(first_namespace) || vm_fatal "no namespace"
name=${dev#/dev/}
mnt=/mnt/sg-fab
mkfs_ext4 "$dev" || vm_fatal "mkfs $dev"
mount_fs "$dev" "$mnt" || vm_fatal "mount $dev"
write_unsynced "$mnt/payload" 256
sync -f "$mnt/payload"

sg_step "1. A service with PrivateMounts=yes starts while $dev is mounted on $mnt; then the host unmounts it"
assert_eq private "$(findmnt -no PROPAGATION /)" "this VM's / (the service gets a private copy)"
systemd-run --quiet --unit sg-private-svc -p PrivateMounts=yes sleep infinity || vm_fatal "systemd-run"
svc_pid=
for _ in $(seq 100); do
	svc_pid=$(systemctl show -P MainPID sg-private-svc)
	[ "${svc_pid:-0}" != 0 ] && grep -q " $mnt " "/proc/$svc_pid/mountinfo" 2>/dev/null && break
	vm_nap 0.1
done
assert_contains "$(cat "/proc/$svc_pid/mountinfo")" " $mnt " "the service's mount table"
umount "$mnt" || vm_fatal "umount $mnt"
assert_eq EBUSY "$(excl_open "$dev")" "the kernel's exclusive open (the service's copy holds it)"

sg_setup
sg_container_new mofed-container nvidia-network-operator
sg_container_start
sg_wait_state blocked
assert_loaded nvme
assert_journal BLOCKED SWAPGUARD_DEVICE="$name" SWAPGUARD_STATE=blocked SWAPGUARD_PID="$svc_pid"
assert_contains "$(sg_journal_text)" "$name is mounted on $mnt (ext4) in another mount namespace than the host's" \
	"the blocked entry"
assert_contains "$(sg_journal_text)" "that of process $svc_pid (sleep)" "the blocked entry names the service's process"
assert_not_contains "$(sg_journal_text)" "claimed in the kernel" "the daemon's journal (no bare kernel claim)"

sg_step "The service stops: its namespace and its copy go; the daemon looks again by itself"
systemctl stop sg-private-svc
sg_wait_state unloaded-waiting-driver 30
assert_not_loaded nvme
assert_journal UNLOADED

sg_step "2. The container's openibd loads its mlx_compat; then the kernel loads only signed modules"
sg_container_compiled
assert_loaded mlx_compat
echo 1 >/sys/module/module/parameters/sig_enforce || vm_fatal "cannot switch on sig_enforce"
assert_eq Y "$(cat /sys/module/module/parameters/sig_enforce)" "sig_enforce"
sg_ready
sg_wait_state restored 60
failed=$(sg_journal_entries FAILED)
vm_log "FAILED: $failed"
assert_contains "$failed" "Key was rejected by service" "the daemon's FAILED entry (the kernel's answer)"
assert_contains "$failed" "this kernel loads only modules signed by a key it trusts (module.sig_enforce=Y)" \
	"the daemon's FAILED entry (why)"
assert_contains "$failed" "mokutil --import" "the daemon's FAILED entry (the remedy)"
sg_assert_in_tree
wait_for_block "$dev" 30 || vm_fail "$dev did not come back after the restore"
mount_fs "$dev" "$mnt" ro || vm_fail "mount $dev after the restore"
drop_caches
assert_ok verify_written "$mnt/payload"
umount "$mnt"
sg_show_journal

sg_stop
sg_container_stop
