# SPDX-License-Identifier: Apache-2.0
# The namespace is mounted only inside another mount namespace (unshare -m,
# kept alive by a process): the host's /proc/1/mountinfo does not show it.
# check must say in use and unload must refuse; once that namespace is gone
# the device is free and the data written there is on the disk.
# Layout: plain.
. "$VM_LIB"
. "${0%/*}/guard-lib.sh"

dev=$(plain_namespace) || vm_fatal "no plain nvme namespace"
name=${dev#/dev/}
devno=$(cat "/sys/block/$name/dev")
mkfs_ext4 "$dev" || vm_fatal "mkfs $dev"
head -c 1048576 /dev/urandom >/tmp/sg-payload

# Mount, write and sync inside the new namespace, then stay there.
unshare -m --propagation private sh -c "mkdir -p /mnt/sg-ns && mount $dev /mnt/sg-ns &&
	cp /tmp/sg-payload /mnt/sg-ns/payload && sync -f /mnt/sg-ns/payload &&
	touch /tmp/sg-ns-ready && exec sleep 600" &
ns_pid=$!
wait_until 20 test -e /tmp/sg-ns-ready || vm_fatal "the other namespace did not mount $dev"
assert_contains "$(cat "/proc/$ns_pid/mountinfo")" " $devno " "the other namespace's mount table"
assert_eq "" "$(grep " $devno " /proc/1/mountinfo)" "the host's mount table (/proc/1/mountinfo)"

assert_guard 3 check
assert_contains "$(guard_output)" "$name" "check text"
assert_guard 3 check --json
assert_eq true "$(jget 'j["in_use"]')" "check in_use"
assert_usage kernel-claim device="$name"

before=$(stack_state)
assert_guard 3 unload --json
assert_eq refused-in-use "$(jget 'j["outcome"]')" "unload outcome"
assert_eq '[]' "$(jget 'j["removed"]')" "modules removed"
assert_stack_untouched "$before"

kill "$ns_pid"
wait "$ns_pid" 2>/dev/null
excl_ok() { [ "$(excl_open "$dev")" = OK ]; }
wait_until 10 excl_ok || vm_fail "$dev still claimed after the namespace ended"
assert_guard 0 check
drop_caches
mount_fs "$dev" /mnt/sg-check ro || vm_fatal "mount $dev"
assert_ok cmp /tmp/sg-payload /mnt/sg-check/payload
umount /mnt/sg-check
