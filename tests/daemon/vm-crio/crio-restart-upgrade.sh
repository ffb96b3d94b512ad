#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Real CRI-O 1.27.8 (lib-crio.sh), the shipped unit; one boot for the driver
# container's life after the first swap (issue 8 item 2: a new driver
# container is a new swap):
#  1. the first swap (runc, the OpenShift 4.14 default runtime);
#  2. mofed-container dies and kubelet restarts it in the same pod: a new
#     container (new id, attempt 1, new directory; the dead one stays until
#     garbage collection). The daemon must swap again, to the new
#     container's build, at its ready file;
#  3. the pod is replaced (a Network Operator upgrade: the old pod stopped
#     and removed, a new pod with another hash, this time under crun). Same:
#     swapped to the new pod's container.
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-crio.sh"
crio_case_begin

# swap_to CID: the container's compile ends; the daemon must end swapped to it.
# First the daemon must have taken out the earlier container's build (a new
# driver container is a new swap): a real compile takes minutes, and ending
# it at once would race the container's openibd against that unload (seen
# at CI load under crun: openibd's rmmod lost, the container exited 1).
# (A precompiled image, which has no compile, can lose that race: its
# openibd exits 1 and kubelet restarts the container, which then finds the
# earlier build gone. README, "A new driver container".)
swap_to() {
	crio_swapped_to "$1"
	assert_ok test -b "$dev"
	assert_contains "$(cat "$SG_STATE_FILE")" "$1" "the state file names ${1:0:12}"
}

sg_step "the first swap"
crio_driver_pod
first=$CRIO_CID
swap_to "$first"

sg_step "mofed-container dies; kubelet starts attempt 1 in the same pod"
kill -KILL "$CRIO_CPID"
crio_wait_ctr_state CONTAINER_EXITED 60 "$first" || vm_fail "the killed container did not exit"
crio_ctr_create mofed-container 1
assert_ne "$first" "$CRIO_CID" "the restarted container's id"
crio_ctr_start || vm_fatal "mofed-container attempt 1 did not start"
crio_footprint "$CRIO_CID"
swap_to "$CRIO_CID"

sg_step "the pod is replaced (upgrade): a new pod, under crun"
old_pod=$CRIO_POD
crio_stop_pod "$old_pod"
crio_driver_pod mofed-rhcos4.14-59c8d7f4b6-ds-q7m2z crun
crio_footprint "$CRIO_CID"
swap_to "$CRIO_CID"
sg_show_journal
