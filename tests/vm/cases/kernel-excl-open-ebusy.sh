# SPDX-License-Identifier: Apache-2.0
# open(O_RDONLY|O_EXCL) on a block device is the kernel's own "is it
# claimed" answer: EBUSY when mounted, held by device-mapper, lazily
# unmounted with a file still open, or mounted only in another mount
# namespace; OK when free.  Layout: plain.
# shellcheck source=../lib.sh
. "$VM_LIB"

dev=$(plain_namespace) || vm_fatal "no plain nvme namespace"
assert_ok mkfs_ext4 "$dev" || vm_fatal "mkfs $dev"
assert_eq OK "$(excl_open "$dev")" "excl open of free $dev"

# 1. mounted
mount_fs "$dev" /mnt/x || vm_fatal "mount $dev"
assert_eq EBUSY "$(excl_open "$dev")" "excl open of mounted $dev"
umount /mnt/x
assert_eq OK "$(excl_open "$dev")" "excl open after umount"

# 2. held by device-mapper (no udevd: libdevmapper makes its own nodes)
export DM_DISABLE_UDEV=1
modprobe dm_mod
sectors=$(blockdev --getsz "$dev")
assert_ok dmsetup create --noudevsync sgtest --table "0 $sectors linear $dev 0"
assert_eq EBUSY "$(excl_open "$dev")" "excl open of $dev under dm"
assert_eq "dm-0" "$(ls "/sys/block/${dev##*/}/holders")" "holders of $dev"
assert_ok dmsetup remove --noudevsync sgtest
assert_eq OK "$(excl_open "$dev")" "excl open after dmsetup remove"

# 3. lazily unmounted with a file open: gone from every mount table, still
#    claiming the device
mount_fs "$dev" /mnt/x || vm_fatal "mount $dev"
echo hello >/mnt/x/f
exec 3</mnt/x/f
umount -l /mnt/x
assert_eq "" "$(grep "^$dev " /proc/self/mounts)" "mount table after umount -l"
assert_eq EBUSY "$(excl_open "$dev")" "excl open after umount -l with an open file"
exec 3<&-
ok=
for _ in $(seq 50); do
	[ "$(excl_open "$dev")" = OK ] && { ok=1; break; }
	vm_nap 0.1
done
assert_eq 1 "$ok" "excl open succeeds once the last file is closed"

# 4. mounted only in another mount namespace
unshare -m --propagation private sh -c \
	"mkdir -p /mnt/y && mount $dev /mnt/y && touch /run/ns-mounted && exec sleep 600" &
ns_pid=$!
deadline=$((SECONDS + 30))
while [ ! -e /run/ns-mounted ] && [ $SECONDS -lt $deadline ]; do vm_nap 0.1; done
assert_file /run/ns-mounted
assert_eq "" "$(grep "^$dev " /proc/self/mounts)" "our mount table (mounted elsewhere)"
assert_contains "$(cat /proc/$ns_pid/mounts)" "$dev /mnt/y" "the other namespace's mount table"
assert_eq EBUSY "$(excl_open "$dev")" "excl open while mounted in another mount namespace"
kill "$ns_pid"
wait "$ns_pid" 2>/dev/null
ok=
for _ in $(seq 50); do
	[ "$(excl_open "$dev")" = OK ] && { ok=1; break; }
	vm_nap 0.1
done
assert_eq 1 "$ok" "excl open succeeds once the namespace is gone"

# The O_EXCL probe takes only a transient module reference.
assert_unload_result nvme OK
assert_ok modprobe nvme
