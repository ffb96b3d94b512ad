# SPDX-License-Identifier: Apache-2.0
# A native-multipath head (nvme-subsys), mounted, with writes not yet synced:
# the kernel pins only nvme_core here, so a bare rmmod nvme succeeds and the
# data is lost (tests/vm/cases/kernel-multipath-unsafe.sh).  The guard must
# refuse: exit 3, nvme and nvme_core still loaded, and once synced the data
# reads back from the disk.  Layout: multipath.
. "$VM_LIB"
. "${0%/*}/guard-lib.sh"

assert_dirty() {
	local kb
	kb=$(dirty_kb)
	if [ "$kb" -ge 2048 ]; then vm_pass "$1: $kb KiB still dirty"; else vm_fail "$1: only $kb KiB dirty"; fi
}

head=$(multipath_head) || vm_fatal "no multipath head"
name=${head#/dev/}
vm_log "head $head, paths: $(multipath_paths "$head" | tr '\n' ' ')"
mkfs_ext4 "$head" || vm_fatal "mkfs $head"
mount_fs "$head" /mnt/sg-mp || vm_fatal "mount $head"
hold_writeback
write_unsynced /mnt/sg-mp/payload 4096
assert_dirty "written without sync"
assert_eq 0 "$(module_refcnt nvme)" "nvme refcnt (the kernel does not pin nvme for a head)"

before=$(stack_state)
assert_guard 3 unload --json
assert_eq refused-in-use "$(jget 'j["outcome"]')" "unload outcome"
assert_eq '[]' "$(jget 'j["removed"]')" "modules removed"
assert_usage mounted device="$name" where=/mnt/sg-mp what=ext4
assert_stack_untouched "$before"
assert_loaded nvme
assert_loaded nvme_core
assert_file "$head"
assert_dirty "after the refusal"

assert_guard 3 check
assert_contains "$(guard_output)" "$name is mounted on /mnt/sg-mp (ext4)" "check text"

# The data reaches the disk and reads back from it, also after a remount.
assert_ok sync -f /mnt/sg-mp/payload
assert_file_data /mnt/sg-mp/payload
assert_remounted_data "$head" /mnt/sg-mp
