#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The driver container's process exits while it compiles, after the daemon
# unloaded the in-tree stack and before any ready file: the daemon must put
# the in-tree stack back (a node is never left without an NVMe driver), the
# namespaces must come back, and the journal must say "restored" and why.
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
sg_setup
dev=$SG_DEV

sg_container_new mofed-container nvidia-network-operator
sg_container_start
sg_wait_state unloaded-waiting-driver
assert_not_loaded nvme
assert_file "$SG_GUARD"

sg_step "The container's process dies in the middle of its compile"
kill -KILL "$SG_CPID"
wait "$SG_CPID" 2>/dev/null
SG_CPID=
sg_wait_state restored
sg_assert_in_tree
assert_no_file "$SG_GUARD"
wait_for_block "$dev" 30
assert_ok test -b "$dev"
assert_ok excl_open "$dev"
assert_journal RESTORED SWAPGUARD_STATE=restored SWAPGUARD_ORIGIN=in-tree SWAPGUARD_CONTAINER_ID="$SG_CID"
assert_contains "$(sg_journal_entries RESTORED)" "container-exited" "restore report (why)"
assert_journal NAMESPACES_BACK
assert_contains "$(sg_journal_entries NAMESPACES_BACK)" "After the restore" "namespaces report"
assert_contains "$(systemctl show -P StatusText "$SG_UNIT")" "restored" "STATUS="
assert_no_file "$SG_READY"

# CRI-O removes the container later: nothing more to do.
sg_container_remove
sleep 2
assert_contains "idle restored" "$(sg_state)" "daemon state after the removal"
sg_assert_in_tree
sg_show_journal
sg_stop
