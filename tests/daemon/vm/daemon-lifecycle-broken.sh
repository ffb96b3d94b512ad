#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The driver container's environment and a stack broken behind the daemon's
# back, on one boot of a real kernel (tests/vm, systemd mode,
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
#     nvme_rdma is loaded from the container's tree;
#  6. a precompiled image, where the environment cannot tell: no
#     ENABLE_NFSRDMA in its env and the build already in its tree when it
#     starts: the daemon says what it assumed (ENV_ASSUMED: a precompiled
#     image, which always carries mlnx-nvme) and swaps to its build as for
#     any driver container. It follows 5c's pod (its build stays loaded:
#     swapped, the earlier build taken out first) under step 5's Modules=
#     (the daemon has not reread its configuration), so it keeps 5c's
#     UNLOAD_STORAGE_MODULES=true: with 5c's nvme_rdma loaded, false would
#     make its entrypoint refuse to start.
# (1. is ENABLE_NFSRDMA=false: the in-tree stack kept, the remedy named.)
# One boot: 176.6 s (113 checks), run on 2026-12-03 (step 6: about 30 s of it;
# 306.9 s and 79 checks before step 6 on 2026-12-02, at a heavier load: about
# 132 s before step 5, its three swaps cost the rest).
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
		vm_nap 0.2
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
rmmod_settled nvme
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

# --- 6. a precompiled image: what the environment cannot tell ------------------------
sg_step "6. A precompiled image replaces 5c's pod: no ENABLE_NFSRDMA in its env, its build already in its tree"
next_pod
assert_eq swapped "$(sg_state)" "state after 5c's pod stopped (RESTORE_DRIVER_ON_POD_TERMINATION=false: its build stays)"
# Its env: the defaults without ENABLE_NFSRDMA (a precompiled image needs
# none), UNLOAD_STORAGE_MODULES=true as in 5c. Written so from the start:
# the daemon reads process.env when config.json appears.
env_saved=("${SG_CTR_ENV_DEFAULT[@]}")
SG_CTR_ENV_DEFAULT=()
for e in "${env_saved[@]}"; do [[ $e == ENABLE_NFSRDMA=* ]] || SG_CTR_ENV_DEFAULT+=("$e"); done
sg_container_new --env UNLOAD_STORAGE_MODULES=true mofed-container nvidia-network-operator
SG_CTR_ENV_DEFAULT=("${env_saved[@]}")
# What a precompiled image unpacks to: the build (RPM layout, depmod run)
# in /lib/modules already, nothing to compile (no /.build-output).
rm -rf "$SG_CROOT/.build-output"
cp -a "$(sg_build_root)/lib/modules/$VM_KVER" "$SG_CROOT/lib/modules/"
ctree=$SG_CROOT/lib/modules/$VM_KVER
assert_file "$ctree/extra/mlnx-nvme/host/nvme.ko"
assert_not_contains "$(/usr/bin/python3 -S -c 'import json, sys; print(" ".join(json.load(open(sys.argv[1]))["process"]["env"]))' "$SG_UD/config.json")" \
	"ENABLE_NFSRDMA" "the container's process.env"
sg_container_start
p_cid=$SG_CID p_cpid=$SG_CPID
sg_wait_state unloaded-waiting-driver
# Decided when the daemon took the container up, before its start event:
# the state is still 5c's swap.
assert_journal ENV_ASSUMED SWAPGUARD_CONTAINER_ID="$p_cid" SWAPGUARD_STATE=swapped PRIORITY=6
assumed=$(sg_journal_entries ENV_ASSUMED SWAPGUARD_CONTAINER_ID="$p_cid")
assert_eq "Driver container ${p_cid:0:12}: the container's tree already holds an NVMe build: taken as a precompiled image, which always carries mlnx-nvme whatever ENABLE_NFSRDMA says." \
	"$assumed" "the ENV_ASSUMED entry (one, what was assumed and why)"
assert_no_journal ENV_NO_NFSRDMA SWAPGUARD_CONTAINER_ID="$p_cid"
assert_journal ENV_RESTORE_ON_STOP SWAPGUARD_CONTAINER_ID="$p_cid" SWAPGUARD_ENV_VALUE=false
# journalctl -x explains it (the unit's ExecStartPre= rebuilt the catalog)
explained=$(journalctl -x --no-pager -q MESSAGE_ID="$(sg_message_id ENV_ASSUMED)" SWAPGUARD_CONTAINER_ID="$p_cid")
assert_contains "$explained" "Subject: Assumption about driver container $p_cid" "journalctl -x: the catalog's subject"
assert_contains "$explained" "set ENABLE_NFSRDMA explicitly" "journalctl -x: the remedy"
notes=$(/usr/bin/python3 -S -c 'import json, sys; print("|".join(json.load(open(sys.argv[1])).get("container_notes") or []))' "$SG_STATE_FILE")
assert_contains "$notes" "ENABLE_NFSRDMA=unset, UNLOAD_STORAGE_MODULES=true" "the state file's container notes: the env"
assert_contains "$notes" "assumed: the container's tree already holds an NVMe build" "the state file's container notes: the assumption"
assert_journal EARLIER_BUILD SWAPGUARD_CONTAINER_ID="$p_cid"
assert_not_loaded nvme
# The image's start-up up to its `openibd restart` is held here (the
# entrypoint's /tmp/compiled; it installs nothing) until the daemon has
# taken 5c's build out, as the compile holds it in the other steps.
back_before=$(sg_journal_entries NAMESPACES_BACK | wc -l)
sg_container_compiled
assert_not_contains "$(cat "$SG_CLOG")" "FAILED" "the container's log (its openibd restart)"
sg_ready
sg_wait_state swapped
sg_assert_oot
sg_assert_mlx_compat_holders nvme nvme_core
assert_journal SWAPPED SWAPGUARD_MODULE=nvme SWAPGUARD_CONTAINER_ID="$p_cid"
assert_eq "$p_cid" "$(/usr/bin/python3 -S -c 'import json, sys; print(json.load(open(sys.argv[1])).get("build_container") or "")' "$SG_STATE_FILE")" \
	"the state file's build_container"
assert_eq "$(modinfo -F srcversion "$ctree/extra/mlnx-nvme/host/nvme.ko")" "$(cat /sys/module/nvme/srcversion)" \
	"live nvme srcversion (= the precompiled tree's nvme.ko)"
assert_contains "$(sg_journal_text | grep "^Loaded .* from the driver container's tree" | tail -n1)" \
	"from the driver container's tree /proc/$p_cpid/root/lib/modules/$VM_KVER" "the load message: this container's tree"
assert_contains "$(module_taint nvme_rdma)" "O" "nvme_rdma taint (the container's build, UNLOAD_STORAGE_MODULES=true)"
wait_for_block "$dev" 30
assert_ok test -b "$dev"
for ((i = 0; i < 50; i++)); do
	[ "$(sg_journal_entries NAMESPACES_BACK | wc -l)" -gt "$back_before" ] && break
	vm_nap 0.2
done
assert_eq $((back_before + 1)) "$(sg_journal_entries NAMESPACES_BACK | wc -l)" "NAMESPACES_BACK entries (one for this swap)"
assert_contains "$(sg_journal_entries NAMESPACES_BACK | tail -n1)" "are back" "namespaces after the swap"
sg_show_journal
sg_stop
sg_container_stop
