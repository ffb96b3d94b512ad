#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Real CRI-O 1.27.8 (lib-crio.sh), the shipped unit; one boot for the driver
# container's life after the first swap (a new driver container is a new
# swap), with RESTORE_DRIVER_ON_POD_TERMINATION false and
# true, and a build that ships its own nvme_auth/nvme_keyring followed by one
# that links the kernel's, and the other way round. The boot's
# stand-in shape (--oot-shape) is S, the other one T (run-vm.sh --oot-both;
# on a kernel with one shape both are the same):
#  1. the first swap (S, runc, the OpenShift 4.14 default runtime);
#  2. mofed-container (RESTORE false) dies and kubelet restarts it in the
#     same pod: a new container (new id, attempt 1, new directory; the dead
#     one stays until garbage collection), RESTORE true this time. The
#     daemon must swap again, to the new container's build, at its ready
#     file;
#  3. that one (RESTORE true) dies too: the daemon starts the pod's-end wait
#     and attempt 2 cancels it; swapped to attempt 2;
#  4. the pod is replaced (a Network Operator upgrade) as seen on a real
#     node: the old container (RESTORE true) killed before its own
#     cleanup, the pod removed, a new pod with another hash 3 s later, under
#     crun, its image built from T (RESTORE false). Swapped to it;
#  5. that pod stopped the graceful way (RESTORE false: its build stays)
#     and replaced by a third, from S. Swapped to it.
# Every swap: the earlier build went whole (its own nvme_auth too: left
# behind it holds mlx_compat, and the new container's `openibd restart`
# cannot remove that), the new container's openibd replaced mlx_compat,
# and nvme_auth is the new build's (its own, or the host's it links).
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-crio.sh"
if [ -z "${VM_OOT_ROOT_LINK:-}" ] || [ -z "${VM_OOT_ROOT_OWN:-}" ]; then
	vm_fatal "needs run-vm.sh --oot-both (the two stand-in shapes)"
fi
# On a kernel of RHEL 9's shape (a modular nvme_auth), the reload gate and
# the daemon's identity taken over (lib-swapguard.sh) run here, before the
# daemon's first start: vm-daemon-fabrics, which runs them on 6.1, is in
# the full matrix only on such a kernel (tests/meson.build).
if kernel_is_module nvme_auth; then
	sg_reload_gate_check
	sg_probe_unit
fi
crio_case_begin

main_shape=$VM_OOT_SHAPE
other_shape='link'
[ "$main_shape" = link ] && other_shape='own'
case " $VM_OOT_SHAPES " in *" $other_shape "*) ;; *) other_shape=$main_shape ;; esac
CRIO_IMAGE_OTHER=nvcr.io/nvidia/mellanox/doca-driver:stand-in-rhcos4.14-amd64-$other_shape
SG_SHAPE=$other_shape crio_build_image "$CRIO_IMAGE_OTHER"
vm_log "stand-in shapes: S=$main_shape (image $CRIO_IMAGE), T=$other_shape (image $CRIO_IMAGE_OTHER)"

# ships_auth SHAPE: whether that build ships its own nvme_auth (a modular
# nvme_auth on this kernel, and a tree that has it).
ships_auth() {
	kernel_is_module nvme_auth || return 1
	local root=$VM_OOT_ROOT_LINK
	[ "$1" = own ] && root=$VM_OOT_ROOT_OWN
	tree_ships "$root" nvme_auth
}

# earlier_went LIST CID: the unload for CID took out LIST, the whole earlier
# build, as one journal entry says.
earlier_went() {
	assert_journal UNLOADED SWAPGUARD_MODULE="$1" SWAPGUARD_CONTAINER_ID="$2"
}

# swap_to CID SHAPE: the container's compile ends; the daemon must end
# swapped to it. First the daemon must have taken out the earlier
# container's build (a new driver container is a new swap): a real compile
# takes minutes, and ending it at once would race the container's openibd
# against that unload (seen at CI load under crun: openibd's rmmod lost, the
# container exited 1). (A precompiled image, which has no compile, can lose
# that race: its openibd exits 1 and kubelet restarts the container, which
# then finds the earlier build gone. README, "A new driver container".)
swap_to() {
	local cid=$1 shape=$2 steps builds
	crio_swapped_to "$cid"
	assert_ok test -b "$dev"
	assert_contains "$(cat "$SG_STATE_FILE")" "$cid" "the state file names ${cid:0:12}"
	steps=$(cat "/proc/$CRIO_CPID/root/tmp/steps" 2>&1)
	assert_contains "$steps" "mlx_compat loaded from this container's tree" \
		"${cid:0:12}'s openibd restart replaced mlx_compat"
	assert_not_contains "$steps" "FAILED" "${cid:0:12}'s openibd restart"
	sg_assert_mlx_compat_holders nvme nvme_core
	kernel_is_module nvme_auth || { vm_log "nvme_auth is not a module of $VM_KVER: no shared build to check"; return 0; }
	builds=$(python3 -S -c 'import json,sys; print(" / ".join(json.load(open(sys.argv[1])).get("module_builds", [])))' "$SG_STATE_FILE")
	if ships_auth "$shape"; then
		assert_contains "$(module_taint nvme_auth)" "O" "nvme_auth is ${cid:0:12}'s own (taint)"
		sg_assert_mlx_compat_holders nvme_auth
		assert_contains "$builds" "nvme_auth: container" "the state file: nvme_auth is the container's build"
	else
		assert_not_contains "$(module_taint nvme_auth)" "O" "nvme_auth is the host's (no taint O)"
		assert_no_file /sys/module/mlx_compat/holders/nvme_auth
		assert_contains "$builds" "nvme_auth: shared-from-host" "the state file: nvme_auth is the host's, shared"
	fi
}

# build_list SHAPE: what an unload of that build takes out on this plain layout.
build_list() {
	if ships_auth "$1"; then echo "nvme nvme_core nvme_auth"; else echo "nvme nvme_core"; fi
}

sg_step "1. the first swap (S=$main_shape)"
crio_driver_pod
first=$CRIO_CID
swap_to "$first" "$main_shape"
earlier_went "nvme nvme_core" "$first" # the in-tree stack: the host's nvme_auth stays

sg_step "2. mofed-container (RESTORE false) dies; kubelet starts attempt 1 (RESTORE true) in the same pod"
kill -KILL "$CRIO_CPID"
crio_wait_ctr_state CONTAINER_EXITED 60 "$first" || vm_fail "the killed container did not exit"
CRIO_RESTORE_ON_TERMINATION=true crio_ctr_create mofed-container 1
assert_ne "$first" "$CRIO_CID" "the restarted container's id"
crio_ctr_start || vm_fatal "mofed-container attempt 1 did not start"
crio_footprint "$CRIO_CID"
swap_to "$CRIO_CID" "$main_shape"
earlier_went "$(build_list "$main_shape")" "$CRIO_CID"

sg_step "3. attempt 1 (RESTORE true) dies; attempt 2 (RESTORE true) in the same pod"
second=$CRIO_CID
kill -KILL "$CRIO_CPID"
crio_wait_ctr_state CONTAINER_EXITED 60 "$second" || vm_fail "the killed container did not exit"
CRIO_RESTORE_ON_TERMINATION=true crio_ctr_create mofed-container 2
crio_ctr_start || vm_fatal "mofed-container attempt 2 did not start"
swap_to "$CRIO_CID" "$main_shape"

sg_step "4. upgrade: the container (RESTORE true) killed before its cleanup, a new pod (T=$other_shape, crun) 3 s later"
crio_end_pod_killed 3 "$CRIO_POD" "$CRIO_CID"
assert_eq "$CRIO_STOP_EXIT" 137 "the old container was killed (SIGKILL after the grace period)"
sleep 3
CRIO_CTR_IMAGE=$CRIO_IMAGE_OTHER crio_driver_pod mofed-rhcos4.14-59c8d7f4b6-ds-q7m2z crun
crio_footprint "$CRIO_CID"
swap_to "$CRIO_CID" "$other_shape"

sg_step "5. upgrade: that pod (RESTORE false) stopped, its build stays; a third pod (S=$main_shape)"
crio_stop_pod "$CRIO_POD"
crio_driver_pod mofed-rhcos4.14-7b4c9d2e1f-ds-h8k3p
swap_to "$CRIO_CID" "$main_shape"
earlier_went "$(build_list "$other_shape")" "$CRIO_CID"
sg_show_journal
