# SPDX-License-Identifier: Apache-2.0
# A mounted plain namespace: check says in use and names the device, the
# mount point and the filesystem; unload refuses with nothing unloaded (same
# modules, same refcounts) and the data stays intact.  Layout: plain.
. "$VM_LIB"
. "${0%/*}/guard-lib.sh"

dev=$(plain_namespace) || vm_fatal "no plain nvme namespace"
name=${dev#/dev/}
mkfs_ext4 "$dev" || vm_fatal "mkfs $dev"
mount_fs "$dev" /mnt/sg-mounted || vm_fatal "mount $dev"
write_unsynced /mnt/sg-mounted/payload 1024
sync -f /mnt/sg-mounted/payload

assert_guard 3 check
assert_contains "$(guard_output)" "$name is mounted on /mnt/sg-mounted (ext4)" "check text"
assert_guard 3 check --json
assert_eq true "$(jget 'j["in_use"]')" "check in_use"
assert_usage mounted device="$name" where=/mnt/sg-mounted what=ext4

before=$(stack_state)
vm_log "stack before: $before"
assert_guard 3 unload --json
assert_eq refused-in-use "$(jget 'j["outcome"]')" "unload outcome"
assert_eq '[]' "$(jget 'j["removed"]')" "modules removed"
assert_usage mounted device="$name" where=/mnt/sg-mounted what=ext4
assert_guard 3 unload
assert_contains "$(guard_output)" "$name is mounted on /mnt/sg-mounted (ext4)" "unload text"
assert_stack_untouched "$before"
assert_loaded nvme
assert_loaded nvme_core
assert_file_data /mnt/sg-mounted/payload
assert_remounted_data "$dev" /mnt/sg-mounted
