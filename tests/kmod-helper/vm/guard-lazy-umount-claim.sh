# SPDX-License-Identifier: Apache-2.0
# A filesystem lazily unmounted (umount -l) while a file on it is open: no
# mount table shows it, yet it still holds the device.  check must say in
# use (the kernel's claim: exclusive open fails with EBUSY) and unload must
# refuse; once the file is closed the namespace is free and its data
# intact.  Layout: plain.
. "$VM_LIB"
. "${0%/*}/guard-lib.sh"

dev=$(plain_namespace) || vm_fatal "no plain nvme namespace"
name=${dev#/dev/}
devno=$(cat "/sys/block/$name/dev")
mkfs_ext4 "$dev" || vm_fatal "mkfs $dev"
mount_fs "$dev" /mnt/sg-lazy || vm_fatal "mount $dev"
write_unsynced /mnt/sg-lazy/payload 1024
sync -f /mnt/sg-lazy/payload

cp /bin/sleep /tmp/sg-reader
(exec 3</mnt/sg-lazy/payload && exec /tmp/sg-reader 600) &
reader=$!
wait_until 10 test -e "/proc/$reader/fd/3" || vm_fatal "reader did not open the file"
umount -l /mnt/sg-lazy || vm_fatal "umount -l"
assert_eq "" "$(grep " $devno " /proc/1/mountinfo /proc/self/mountinfo)" "mount tables (by devno $devno)"
assert_eq EBUSY "$(excl_open "$dev")" "exclusive open of $dev"

assert_guard 3 check
assert_contains "$(guard_output)" "$name is claimed in the kernel" "check text"
# every mount namespace was read: the kernel's answer is the last word
assert_contains "$(guard_output)" "no mount table of any mount namespace" "check text"
assert_contains "$(guard_output)" "lazily unmounted (umount -l)" "check text"
assert_guard 3 check --json
assert_usage kernel-claim device="$name"
assert_usage_kinds kernel-claim

before=$(stack_state)
assert_guard 3 unload --json
assert_eq refused-in-use "$(jget 'j["outcome"]')" "unload outcome"
assert_usage kernel-claim device="$name"
assert_stack_untouched "$before"

# The last close ends the mount (asynchronously): then the device is free.
kill "$reader"
wait "$reader" 2>/dev/null
excl_ok() { [ "$(excl_open "$dev")" = OK ]; }
wait_until 10 excl_ok || vm_fail "$dev still claimed after the reader exited"
assert_guard 0 check
assert_data "$dev" /mnt/sg-lazy
