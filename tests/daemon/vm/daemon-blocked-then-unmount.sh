#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A namespace is mounted when the driver container starts: the daemon must
# not unload (state blocked) and must name the device and the mount point in
# the journal (MESSAGE_ID BLOCKED, SWAPGUARD_DEVICE, SWAPGUARD_MOUNT_POINT).
# Once it is unmounted, while the container still compiles, the daemon
# proceeds on its own (mount table event, no polling): it unloads, and the
# swap completes at ready. The file system's data survives the swap.
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
sg_require

# The namespace is mounted before the daemon starts.
dev=$(first_namespace) || vm_fatal "no namespace"
mnt=/mnt/nvme-data
# Before the mount: a real node's / is shared (see lib-swapguard.sh).
sg_node_like_propagation
mkfs_ext4 "$dev" || vm_fatal "mkfs $dev"
mount_fs "$dev" "$mnt" || vm_fatal "mount $dev"
write_unsynced "$mnt/payload" 256
sync -f "$mnt/payload"

sg_setup

sg_container_new mofed-container nvidia-network-operator
sg_container_start
sg_wait_state blocked
assert_loaded nvme
assert_loaded nvme_core
assert_no_file "$SG_GUARD"
assert_journal BLOCKED SWAPGUARD_DEVICE="${dev#/dev/}" SWAPGUARD_MOUNT_POINT="$mnt" SWAPGUARD_STATE=blocked
assert_contains "$(systemctl show -P StatusText "$SG_UNIT")" "blocked" "STATUS="
assert_ok verify_written "$mnt/payload"

sg_step "Unmounting $mnt while the container still compiles"
umount "$mnt" || vm_fatal "umount $mnt"
sg_wait_state unloaded-waiting-driver 30
assert_not_loaded nvme
assert_ok kill -0 "$SG_CPID"
assert_no_file "$SG_CROOT/tmp/done"
assert_journal UNLOADED
assert_contains "$(sg_journal_text)" "free now" "daemon journal (re-check after the unmount)"

sg_container_compiled
sg_ready
sg_wait_state swapped
sg_assert_oot
wait_for_block "$dev" 30
mount_fs "$dev" "$mnt" || vm_fail "mount $dev after the swap"
drop_caches
assert_ok verify_written "$mnt/payload"
umount "$mnt"
sg_show_journal

sg_stop
sg_container_stop
