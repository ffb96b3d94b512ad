#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The pin (issue 9), on the real kernel with the shipped unit under systemd
# (layout mixed: a native-multipath head and a plain PCIe namespace, one
# boot for every step):
#   - both mounted with unsynced writes: the daemon pins nvme (journal
#     PINNED per device, STATUS=, the state file, nvme-swapguard-kmod status);
#   - a foreign `rmmod nvme` and a foreign `modprobe -r nvme` both fail, and
#     so does `rmmod nvme` right after `systemctl restart` returns (pinned
#     again before READY=1);
#   - the data verifies after dropping caches, no "Buffer I/O error";
#   - after the unmount the pin goes within a few seconds (UNPINNED), and a
#     guarded unload succeeds.
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
sg_require

head=$(multipath_head) || vm_fatal "no multipath head"
plain=$(plain_namespace) || vm_fatal "no plain namespace"
vm_log "multipath head $head, plain namespace $plain"
sg_node_like_propagation
sg_assert_in_tree

sg_start_dbus
sg_install_unit
sg_start
sg_wait_state idle
assert_no_journal PINNED

sg_step "Mounting both namespaces and writing without sync"
hold_writeback
dmesg_mark
for d in "$head" "$plain"; do
	mkfs_ext4 "$d" || vm_fatal "mkfs $d"
done
mount_fs "$head" /mnt/mp || vm_fatal "mount $head"
mount_fs "$plain" /mnt/plain || vm_fatal "mount $plain"
write_unsynced /mnt/mp/payload 2048
write_unsynced /mnt/plain/payload 2048
vm_log "dirty: $(dirty_kb) KiB"

# The always-on watch: a mount table change, coalesced, then the pin.
wait_pinned() { # DEVICE
	local deadline=$((SECONDS + 20))
	while [ $SECONDS -lt $deadline ]; do
		sg_journal_entries PINNED SWAPGUARD_DEVICE="$1" >/dev/null && return 0
		sleep 0.2
	done
	return 1
}
t0=$SECONDS
wait_pinned "${head#/dev/}" && vm_pass "pinned for $head within $((SECONDS - t0)) s" || vm_fail "no PINNED entry for $head"
wait_pinned "${plain#/dev/}" && vm_pass "pinned for $plain" || vm_fail "no PINNED entry for $plain"
assert_journal PINNED SWAPGUARD_DEVICE="${head#/dev/}" SWAPGUARD_MODULE=nvme
assert_contains "$(systemctl show -P StatusText "$SG_UNIT")" "nvme pinned: $head mounted at /mnt/mp (ext4)" "STATUS="
assert_contains "$(cat "$SG_STATE_FILE")" "nvme pinned: $plain mounted at /mnt/plain (ext4)" "state file"
assert_contains "$("$VM_KMOD_HELPER" status 2>&1)" "nvme pinned: $head mounted at /mnt/mp (ext4)" "nvme-swapguard-kmod status"

sg_step "Foreign removers while the daemon runs"
out=$(rmmod nvme 2>&1); rc=$?
vm_log "rmmod nvme -> $rc: $out"
assert_ne 0 "$rc" "rmmod nvme exit status"
out=$(modprobe -r nvme 2>&1); rc=$?
vm_log "modprobe -r nvme -> $rc: $out"
assert_ne 0 "$rc" "modprobe -r nvme exit status"
assert_unload_result nvme EAGAIN
assert_unload_result nvme_core EAGAIN
assert_loaded nvme
assert_file "$head"

sg_step "A daemon restart pins again before READY=1"
systemctl restart "$SG_UNIT" || vm_fatal "systemctl restart"
assert_unload_result nvme EAGAIN
assert_eq 2 "$(journalctl -u "$SG_UNIT" -o json --no-pager -q | grep -c "$(sg_message_id STARTED)")" "two starts"

sg_step "The data reaches the disks and reads back from them"
sync -f /mnt/mp/payload; sync -f /mnt/plain/payload
drop_caches
assert_ok verify_written /mnt/mp/payload
assert_ok verify_written /mnt/plain/payload
if dmesg_since_mark | grep -q "Buffer I/O error"; then vm_fail "Buffer I/O error in the kernel log"
else vm_pass "no Buffer I/O error in the kernel log"; fi

sg_step "Unmounting: the pin goes, a guarded unload succeeds"
umount /mnt/mp || vm_fatal "umount /mnt/mp"
umount /mnt/plain || vm_fatal "umount /mnt/plain"
t0=$SECONDS
deadline=$((SECONDS + 20))
while [ $SECONDS -lt $deadline ] && ! sg_journal_entries UNPINNED >/dev/null; do sleep 0.2; done
if sg_journal_entries UNPINNED >/dev/null; then vm_pass "pin released $((SECONDS - t0)) s after the unmount"
else vm_fail "no UNPINNED entry 20 s after the unmount"; fi
assert_not_contains "$(systemctl show -P StatusText "$SG_UNIT")" "pinned" "STATUS= after the unmount"
"$VM_KMOD_HELPER" unload; rc=$?
assert_eq 0 "$rc" "nvme-swapguard-kmod unload after the unmount"
assert_not_loaded nvme
"$VM_KMOD_HELPER" restore >/dev/null; rc=$?
assert_eq 0 "$rc" "nvme-swapguard-kmod restore"
sg_show_journal
sg_stop
