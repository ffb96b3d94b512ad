#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The driver container's environment and a stack broken behind the daemon's
# back (issue 8), on one boot of a real kernel (tests/vm, systemd mode,
# --oot, the shipped unit, the NVIDIA-shaped stand-in and its fake driver
# container, lib-swapguard.sh):
#  1. ENABLE_NFSRDMA=false on a sources image: no NVMe build will come: the
#     daemon never unloads the in-tree stack (state no-build) and says why;
#  2. ENABLE_NFSRDMA=true but the compile installs no mlnx-nvme: at the ready
#     file the tree has no nvme build: not a swap (no-build), the in-tree
#     stack back; never "swapped" with the host's modules;
#  3. RESTORE_DRIVER_ON_POD_TERMINATION=true: the pod's stop takes NVIDIA's
#     modules out (mlnxofedctl force-restart): the daemon puts the in-tree
#     stack back (never idle without a driver);
#  4. a swapped stack broken behind the daemon's back (rmmod nvme leaves
#     nvme_core, as openibd restart does): reported, in-tree stack back;
#  5. UNLOAD_STORAGE_MODULES, with nvme_rdma among the modules to swap
#     (Modules= in the configuration; the stand-in builds nvme-rdma.ko, its
#     ib_core and rdma_cm come from the host's tree): not "true": the daemon
#     never loads nvme_rdma (reported), and the next pod of the same image
#     starts (its Go entrypoint would refuse with nvme_rdma loaded); "true":
#     nvme_rdma is loaded from the container's tree.
# (1. is ENABLE_NFSRDMA=false: the in-tree stack kept, the remedy named.)
# One boot: 306.9 s (79 checks), run on 2026-12-02 (about 132 s before step 5:
# its three swaps cost the rest).
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
declare -F sg_container_compiled >/dev/null ||
	vm_skip "needs the NVIDIA-shaped stand-in and its fake driver container (lib-swapguard.sh from the standin: commit)"

sg_setup
dev=$SG_DEV

next_pod() { sg_container_stop; sg_container_remove; sleep 1; }

# wait_in_tree_settled [SECONDS]: the daemon settled (restored, or idle once
# the container is gone too) with the in-tree stack loaded.
wait_in_tree_settled() {
	local deadline=$((SECONDS + ${1:-60})) s
	while [ $SECONDS -lt $deadline ]; do
		s=$(sg_state)
		if { [ "$s" = restored ] || [ "$s" = idle ]; } && [ -e /sys/module/nvme ] &&
			! grep -q O /sys/module/nvme/taint 2>/dev/null; then
			vm_pass "daemon settled in $s with the in-tree stack"
			return 0
		fi
		sleep 0.2
	done
	vm_fail "daemon state '$(sg_state)', nvme $(cat /sys/module/nvme/taint 2>/dev/null || echo absent): not settled in-tree"
	journalctl -u "$SG_UNIT" --no-pager -q -o cat | tail -n 20 | sed 's/^/#   /'
	return 1
}

# --- 1. ENABLE_NFSRDMA=false ------------------------------------------------
sg_step "1. A sources image without ENABLE_NFSRDMA=true"
sg_container_new --env ENABLE_NFSRDMA=false mofed-container nvidia-network-operator
sg_container_start
sg_wait_state no-build
assert_journal ENV_NO_NFSRDMA SWAPGUARD_CONTAINER_ID="$SG_CID"
assert_contains "$(sg_journal_entries ENV_NO_NFSRDMA)" "spec.ofedDriver.env" "the remedy"
sg_assert_in_tree
assert_no_journal UNLOADED SWAPGUARD_CONTAINER_ID="$SG_CID"
assert_contains "$(cat "$SG_STATE_FILE")" "ENABLE_NFSRDMA" "the state file's container notes"
next_pod
sg_wait_state idle

# --- 2. a tree without an nvme build ------------------------------------------
sg_step "2. ENABLE_NFSRDMA=true, but the compile installs no mlnx-nvme"
sg_container_new mofed-container nvidia-network-operator
rm -rf "$SG_CROOT/.build-output/lib/modules/$VM_KVER/extra/mlnx-nvme"
depmod -b "$SG_CROOT/.build-output" "$VM_KVER"
sg_container_start
sg_wait_state unloaded-waiting-driver
sg_container_compiled
sg_ready
sg_wait_state no-build
assert_journal NO_BUILD SWAPGUARD_CONTAINER_ID="$SG_CID"
assert_no_journal SWAPPED SWAPGUARD_CONTAINER_ID="$SG_CID"
sg_assert_in_tree
wait_for_block "$dev" 30
assert_ok test -b "$dev"
next_pod
sg_wait_state idle

# --- 3. RESTORE_DRIVER_ON_POD_TERMINATION=true --------------------------------
sg_step "3. RESTORE_DRIVER_ON_POD_TERMINATION=true: the pod's stop takes NVIDIA's modules out"
sg_container_new --env RESTORE_DRIVER_ON_POD_TERMINATION=true mofed-container nvidia-network-operator
sg_container_start
sg_wait_state unloaded-waiting-driver
assert_journal ENV_RESTORE_ON_STOP SWAPGUARD_ENV_VALUE=true
sg_container_compiled
sg_ready
sg_wait_state swapped
sg_assert_oot
sg_container_stop
assert_contains "$(cat "$SG_CLOG")" "restore inbox driver" "the container's stop"
wait_in_tree_settled 60
assert_journal RESTORED
sg_assert_in_tree
wait_for_block "$dev" 30
assert_ok test -b "$dev"
sg_container_remove
sleep 1

# --- 4. a stack broken behind the daemon's back ---------------------------------
sg_step "4. Swapped, then nvme is removed behind the daemon's back (nvme_core stays)"
sg_container_new mofed-container nvidia-network-operator
sg_container_start
sg_wait_state unloaded-waiting-driver
sg_container_compiled
sg_ready
sg_wait_state swapped
rmmod nvme
assert_loaded nvme_core
sg_wait_state restored 60
assert_journal STACK_BROKEN SWAPGUARD_BREAK=core-without-nvme
sg_assert_in_tree
wait_for_block "$dev" 30
assert_ok test -b "$dev"

# --- 5. UNLOAD_STORAGE_MODULES ----------------------------------------------------
sg_step "5. nvme_rdma to swap too; UNLOAD_STORAGE_MODULES=false: never loaded from the container"
next_pod
wait_in_tree_settled 60
conf=/etc/nvme-swapguard/nvme-swapguard.conf
mkdir -p "${conf%/*}"
printf '[Swap]\nModules=nvme_core nvme nvme_fabrics nvme_rdma\n' >"$conf"
systemctl restart "$SG_UNIT" || vm_fatal "systemctl restart $SG_UNIT"
wait_in_tree_settled 60
# swap_pod [--env K=V]...: a pod of the driver container, swapped to its build.
swap_pod() {
	sg_container_new "$@" mofed-container nvidia-network-operator
	sg_container_start
	sg_wait_state unloaded-waiting-driver
	sg_container_compiled
	sg_ready
	sg_wait_state swapped
}
swap_pod
sg_assert_oot
assert_journal ENV_NVME_RDMA_SKIPPED SWAPGUARD_CONTAINER_ID="$SG_CID" SWAPGUARD_MODULE=nvme_rdma
assert_contains "$(sg_journal_entries ENV_NVME_RDMA_SKIPPED SWAPGUARD_CONTAINER_ID="$SG_CID")" \
	"its entrypoint refuses to start while nvme_rdma is loaded" "why nvme_rdma was left out"
assert_not_loaded nvme_rdma
assert_contains "$(module_taint nvme_fabrics)" "O" "nvme_fabrics taint (the container's build)"

sg_step "5b. The next pod of the same image starts (its storage-module check passes)"
sg_container_stop
sg_container_remove
sleep 1
swap_pod
assert_not_contains "$(cat "$SG_CLOG")" "UNLOAD_STORAGE_MODULES not set" "the new container's log"
assert_not_loaded nvme_rdma

sg_step "5c. UNLOAD_STORAGE_MODULES=true: nvme_rdma comes from the container's tree"
sg_container_stop
sg_container_remove
sleep 1
swap_pod --env UNLOAD_STORAGE_MODULES=true
assert_no_journal ENV_NVME_RDMA_SKIPPED SWAPGUARD_CONTAINER_ID="$SG_CID"
assert_loaded nvme_rdma
assert_contains "$(module_taint nvme_rdma)" "O" "nvme_rdma taint (the container's build)"
sg_assert_mlx_compat_holders nvme_rdma
loaded_line=$(sg_journal_text | grep "^Loaded .* from the driver container's tree" | tail -n1)
ours=${loaded_line%% from the driver container\'s tree*}
assert_contains "$ours" "nvme_rdma" "the load message: from the container's tree"
assert_not_contains "$ours" "rdma_cm" "the load message: rdma_cm is not from the container's tree"
assert_contains "$loaded_line" "rdma_cm" "the load message names rdma_cm (the host's tree)"
wait_for_block "$dev" 30
assert_ok test -b "$dev"
rm -f "$conf"
sg_show_journal
sg_stop
sg_container_stop
