#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Real CRI-O 1.27.8 (lib-crio.sh), the shipped unit; one boot for the pod's
# end (who loaded it takes it back):
#  1. RESTORE_DRIVER_ON_POD_TERMINATION=true, the pod deleted while the
#     container's cleanup outlasts the grace period (crictl stop --timeout,
#     then stopp/rmp, as kubelet): killed before it touched a module. The
#     daemon, which loaded NVIDIA's build, takes it out and puts the in-tree
#     stack back: restored, the journal saying who did what;
#  2. the same with false: the build stays (swapped), and the journal says so;
#  3. true, a namespace mounted at that moment: blocked (the usual BLOCKED
#     entry), restored once it is unmounted.
# The crash loop is crio-crash-loop.sh (one boot holds three pods' ends only).
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-crio.sh"
crio_require

dev=$(first_namespace) || vm_fatal "no namespace"
mnt=/mnt/nvme-data
sg_assert_in_tree
sg_start_dbus || vm_fatal "no system bus: CRI-O's systemd cgroup manager needs one"
sg_node_like_propagation
mkfs_ext4 "$dev" || vm_fatal "mkfs $dev"
sg_install_unit
sg_start
sg_wait_state idle
sg_assert_on_bus
crio_setup


# The bounded wait (10 s of quiet after the exit, at most 60 s) plus the
# unload and the load, on an emulated CPU.
POD_END_S=150

sg_step "1. RESTORE_DRIVER_ON_POD_TERMINATION=true; the pod deleted, its cleanup killed"
export CRIO_RESTORE_ON_TERMINATION=true
crio_driver_pod
first=$CRIO_CID
crio_swapped_to "$first"
crio_end_pod_killed 3
sg_wait_state restored $POD_END_S
sg_assert_in_tree
wait_for_block "$dev" 30
assert_ok test -b "$dev"
assert_journal POD_END_TAKE_BACK SWAPGUARD_CONTAINER_ID="$first"
assert_journal POD_END_RESTORED SWAPGUARD_CONTAINER_ID="$first" SWAPGUARD_STATE=restored
assert_journal RESTORED SWAPGUARD_STATE=restored
assert_eq "$CRIO_STOP_EXIT" 137 "${first:0:12} killed at the end of its grace period (SIGKILL)"

sg_step "2. false: the build stays, and the journal says so"
export CRIO_RESTORE_ON_TERMINATION=false
crio_driver_pod
second=$CRIO_CID
crio_swapped_to "$second"
crio_end_pod_killed 3
assert_eq "$CRIO_STOP_EXIT" 137 "${second:0:12} killed at the end of its grace period (SIGKILL)"
for ((i = 0; i < 600; i++)); do
	sg_journal_entries POD_END_BUILD_STAYS SWAPGUARD_CONTAINER_ID="$second" >/dev/null && break
	vm_nap 0.2
done
assert_journal POD_END_BUILD_STAYS SWAPGUARD_CONTAINER_ID="$second" SWAPGUARD_STATE=swapped
assert_no_journal POD_END_TAKE_BACK SWAPGUARD_CONTAINER_ID="$second"
assert_eq "$(sg_state)" swapped "state after the pod's end with false"
sg_assert_oot

sg_step "3. true, a namespace mounted when the pod ends: blocked, then restored"
export CRIO_RESTORE_ON_TERMINATION=true
crio_driver_pod
third=$CRIO_CID
crio_swapped_to "$third"
mount_fs "$dev" "$mnt" || vm_fatal "mount $dev"
crio_end_pod_killed 3
sg_wait_state blocked $POD_END_S
assert_journal BLOCKED SWAPGUARD_DEVICE="${dev#/dev/}" SWAPGUARD_MOUNT_POINT="$mnt" SWAPGUARD_STATE=blocked
sg_assert_oot
assert_ok mountpoint -q "$mnt"
umount "$mnt" || vm_fatal "umount $mnt"
sg_wait_state restored $POD_END_S
sg_assert_in_tree
assert_journal POD_END_RESTORED SWAPGUARD_CONTAINER_ID="$third"
assert_not_contains "$(sg_journal_text)" "did not become ready" "no ready deadline on the pod's end"

sg_show_journal
