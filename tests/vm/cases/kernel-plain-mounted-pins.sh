# SPDX-License-Identifier: Apache-2.0
# Kernel behaviour the guard builds on: a mounted PLAIN (single-path) PCIe
# namespace pins the nvme module, so unloading nvme fails with EAGAIN
# ("in use") and the data stays safe.  Layout: plain.
# shellcheck source=../lib.sh
. "$VM_LIB"

dev=$(plain_namespace) || vm_fatal "no plain nvme namespace"
assert_loaded nvme
assert_loaded nvme_core
assert_eq 0 "$(module_refcnt nvme)" "nvme refcnt while the namespace is free"

assert_ok mkfs_ext4 "$dev" || vm_fatal "mkfs $dev"
assert_ok mount_fs "$dev" /mnt/pin || vm_fatal "mount $dev"
hold_writeback
write_unsynced /mnt/pin/data 1024
assert_ne 0 "$(dirty_kb)" "dirty KiB after an unsynced write"
assert_ne 0 "$(module_refcnt nvme)" "nvme refcnt while mounted"

# The kernel's own answer (raw delete_module, O_NONBLOCK, no force flag) ...
assert_unload_result nvme EAGAIN
# ... and what kmod's rmmod says (it checks the refcount first).
assert_fails rmmod nvme
assert_loaded nvme
assert_file "$dev"
assert_ok verify_written /mnt/pin/data

# The pin is the mount: once unmounted, the module goes and comes back.
assert_ok umount /mnt/pin
assert_unload_result nvme OK
assert_not_loaded nvme
assert_ok modprobe nvme
wait_for_block "$dev" 30 || vm_fail "$dev did not come back"
assert_ok mount_fs "$dev" /mnt/pin
drop_caches
assert_ok verify_written /mnt/pin/data
umount /mnt/pin
