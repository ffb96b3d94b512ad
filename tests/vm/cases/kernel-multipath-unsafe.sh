# SPDX-License-Identifier: Apache-2.0
# Kernel behaviour the guard exists for: on a native-multipath head
# (nvmeXnY over hidden paths nvmeXcYnZ) only nvme_core is pinned, so
# `rmmod nvme` SUCCEEDS while the namespace is mounted with unsynced data:
# the disk disappears and the data is lost.  This test asserts exactly that,
# so it fails the day the kernel starts protecting the mount.
# Layout: multipath.
# shellcheck source=../lib.sh
. "$VM_LIB"

assert_eq Y "$(cat /sys/module/nvme_core/parameters/multipath)" "nvme_core multipath"
dev=$(multipath_head) || vm_fatal "no multipath head among: $(nvme_namespaces)"
paths=$(multipath_paths "$dev" | tr '\n' ' ')
vm_log "head $dev, hidden paths: $paths"
assert_eq 2 "$(multipath_paths "$dev" | wc -l)" "number of paths behind $dev"
for p in $paths; do
	assert_eq 1 "$(cat "/sys/block/$p/hidden" 2>/dev/null || echo 0)" "$p hidden"
	assert_no_file "/dev/$p"
done

assert_ok mkfs_ext4 "$dev" || vm_fatal "mkfs $dev"
assert_ok mount_fs "$dev" /mnt/mp || vm_fatal "mount $dev"
hold_writeback
write_unsynced /mnt/mp/data 4096
assert_ne 0 "$(dirty_kb)" "dirty KiB after an unsynced write"
assert_eq 0 "$(module_refcnt nvme)" "nvme refcnt while the head is mounted (not pinned)"
assert_ne 0 "$(module_refcnt nvme_core)" "nvme_core refcnt while mounted"

dmesg_mark
# THE HAZARD: the kernel lets nvme go although its namespace is mounted.
assert_unload_result nvme OK
assert_not_loaded nvme
assert_loaded nvme_core
wait_gone "$dev" 30
assert_no_file "$dev"
assert_contains "$(grep " /mnt/mp " /proc/mounts)" "/mnt/mp" "mount table (still lists the dead mount)"

# The unsynced data cannot reach the disk any more.
if sync -f /mnt/mp/data 2>/dev/null; then
	vm_fail "syncfs on the orphaned filesystem succeeded"
else
	vm_pass "syncfs on the orphaned filesystem fails"
fi
log=$(dmesg_since_mark)
assert_contains "$log" "no available path - failing I/O" "kernel log after the unload"
vm_log "kernel log after the unload (first lines):"
printf '%s\n' "$log" | head -n 12 | sed 's/^/#   /'
umount -l /mnt/mp

# Bring the stack back: the file written before the unload is gone.
assert_ok modprobe nvme
for _ in $(seq 100); do dev=$(multipath_head) && break; vm_nap 0.1; done
[ -n "$dev" ] && wait_for_block "$dev" 30 || vm_fatal "multipath head did not come back"
assert_ok mount_fs "$dev" /mnt/mp
if verify_written /mnt/mp/data 2>/dev/null; then
	vm_fail "data written before the unload survived (kernel behaviour changed?)"
else
	vm_pass "data written before the unload is lost"
fi
umount /mnt/mp
