#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Containers that are not the driver container must be ignored: a
# mofed-container in another pod namespace, and the driver pod's own
# compile sidecar (openshift-driver-toolkit-ctr, right namespace, other
# name). Both run (scope + pidfile); nothing may be unloaded. To know the
# daemon has looked at them, a matching container is then created (CRI-O's
# "create", no process yet): once the daemon says it follows that one, it
# has read the store entries made before it.
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
sg_setup
refcnt=$(module_refcnt nvme_core)

sg_step "mofed-container in namespace gpu-operator, and the toolkit sidecar of the driver pod"
sg_container_new mofed-container gpu-operator
sg_container_start
other_id=$SG_CID other_pid=$SG_CPID
sg_container_new openshift-driver-toolkit-ctr nvidia-network-operator
sg_container_start
sidecar_id=$SG_CID sidecar_pid=$SG_CPID

sg_container_new mofed-container nvidia-network-operator
deadline=$((SECONDS + 60))
until sg_journal_text | grep -q "Container ${SG_CID:0:12} is .* following it"; do
	[ $SECONDS -lt $deadline ] || { vm_fail "the daemon never read the matching container ${SG_CID:0:12}"; break; }
	vm_nap 0.2
done
sleep 1

journal=$(sg_journal_text)
assert_not_contains "$journal" "Container ${other_id:0:12} is" "daemon journal (other namespace)"
assert_not_contains "$journal" "Container ${sidecar_id:0:12} is" "daemon journal (sidecar)"
assert_eq idle "$(sg_state)" "daemon state"
sg_assert_in_tree
assert_eq "$refcnt" "$(module_refcnt nvme_core)" "nvme_core refcnt"
assert_no_file "$SG_GUARD"
assert_no_journal CONTAINER_SEEN
assert_no_journal UNLOADED
assert_no_journal BLOCKED
assert_ok kill -0 "$other_pid"
assert_ok kill -0 "$sidecar_pid"

# CRI-O removes the created-only container: still nothing happens.
sg_container_remove
sleep 1
assert_eq idle "$(sg_state)" "daemon state after the removal"
sg_show_journal
sg_stop
kill -KILL "$other_pid" "$sidecar_pid" 2>/dev/null
