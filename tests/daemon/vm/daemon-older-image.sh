#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Older image (before doca-driver-build PR #91): the driver container loads
# its own nvme build right after its compile ("openibd restart; modprobe
# nvme"), from its own root, while the in-tree stack is unloaded and before
# the ready file. The daemon must only report the swap (origin nvidia,
# "loaded by the driver container"), never load anything itself.
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
sg_setup
dev=$SG_DEV

# Its openibd where a current image keeps it (check_if_ok_to_stop without
# nvme): UnloadAt=auto must still choose its start, for what its entrypoint
# loads.
SG_OPENIBD=shipped sg_container_new mofed-container nvidia-network-operator
sg_container_loads_own_build nvme
sg_container_start
sg_wait_state unloaded-waiting-driver
assert_not_loaded nvme
assert_journal UNLOAD_MOMENT SWAPGUARD_CONTAINER_ID="$SG_CID" SWAPGUARD_UNLOAD_AT=container-start \
	SWAPGUARD_MOMENT_RULE=image-loads-nvme

sg_step "The container's compile ends: openibd restart loads mlx_compat, then it insmods its own nvme build"
sg_container_compiled
sg_assert_oot
sg_assert_mlx_compat_holders nvme nvme_core
# The daemon sees the build arrive (module uevents) and waits for ready.
sleep 2
assert_eq unloaded-waiting-driver "$(sg_state)" "daemon state after the container's own load"

sg_ready
sg_wait_state swapped
sg_assert_oot
assert_no_file "$SG_GUARD"
wait_for_block "$dev" 30
assert_ok test -b "$dev"
assert_journal SWAPPED SWAPGUARD_MODULE=nvme SWAPGUARD_ORIGIN=nvidia SWAPGUARD_GDS_HOOKS=yes
assert_contains "$(sg_journal_entries SWAPPED SWAPGUARD_MODULE=nvme)" "loaded by the driver container" "swap report"
assert_not_contains "$(sg_journal_text)" "Loaded " "daemon journal (the daemon loaded nothing)"
assert_not_contains "$(sg_journal_text)" "-> loading" "daemon journal (never in state loading)"
# Its insmods one after the other are work in progress, not a broken stack
# (judged between the two on a busy machine, the daemon once took the
# half-loaded build out and ended failed).
assert_not_contains "$(sg_journal_text)" "The NVMe stack is broken" "daemon journal (the container's own loads)"
assert_not_contains "$(sg_journal_text)" "-> repairing" "daemon journal (nothing repaired)"
assert_journal NAMESPACES_BACK
sg_show_journal

sg_stop
sg_container_stop
