# SPDX-License-Identifier: Apache-2.0
# The out-of-tree nvme build (stand-in for NVIDIA's mlnx-nvme, from
# build-oot-nvme.sh, laid out as a driver container's root in $VM_OOT_ROOT)
# replaces the in-tree stack on a free namespace: unload nvme, nvme_core and
# what nvme_core needs outside drivers/nvme/host (6.1: t10_pi; 6.12:
# nvme_auth; read from the kernel under test), insmod the container's
# modules with each of those resolved from the container's tree when it
# ships one (--oot-shape own) and from the HOST tree otherwise, check the
# taints and that the namespace is back, then swap back.
# Layout: plain.  Needs run-vm.sh --oot.
# shellcheck source=../lib.sh
. "$VM_LIB"

[ -n "${VM_OOT_ROOT:-}" ] || vm_skip "no out-of-tree build (run-vm.sh --oot)"
tree=$VM_OOT_ROOT/lib/modules/$VM_KVER
dev=$(plain_namespace) || vm_fatal "no plain nvme namespace"

assert_file "$tree/extra/mlnx-nvme/host/nvme.ko"
assert_contains "$(cat "$tree/modules.dep")" "extra/mlnx-nvme/host/nvme.ko: extra/mlnx-nvme/host/nvme-core.ko" "container modules.dep"
# nvme_core's direct dependencies, from the in-tree module of this kernel.
intree_deps=$(modinfo -F depends "$(kernel_module_file nvme_core)" | tr , '\n' | sort | tr '\n' ' ')
vm_log "kernel $VM_KVER: in-tree nvme_core depends on: ${intree_deps:-nothing}; stand-in shape ${VM_OOT_SHAPE:-?}"
assert_eq "$intree_deps" \
	"$(modinfo -F depends "$tree/extra/mlnx-nvme/host/nvme-core.ko" | tr , '\n' | grep -vx mlx_compat | sort | tr '\n' ' ')" \
	"nvme-core.ko depends (besides mlx_compat) as the in-tree one"
shared=
for d in $intree_deps; do
	d=$(kmod_name "$d")
	kernel_is_module "$d" || continue
	shared+="$d "
	if tree_ships "$VM_OOT_ROOT" "$d"; then
		assert_contains "$(cat "$tree/modules.dep")" "extra/mlnx-nvme/common/${d//_/-}.ko" "container modules.dep ($d: its own)"
	else
		assert_not_contains "$(cat "$tree/modules.dep")" "${d//_/-}" "container modules.dep (host-only $d dropped)"
	fi
done

assert_loaded nvme
assert_eq "" "$(module_taint nvme)" "in-tree nvme taint"

# Unload the in-tree stack, holders first (what the guard's plan does).
assert_unload_result nvme OK
assert_unload_result nvme_core OK
for d in $shared; do
	assert_unload_result "$d" OK
	assert_not_loaded "$d"
done
assert_not_loaded nvme_core

# Load the container's build, from the container's root as the node sees it
# (/proc/<pid>/root); a shared module the tree lacks comes from the host's.
fake_container_start
OOT_TREE_ROOT=/proc/$VM_CONTAINER_PID/root
assert_file "$OOT_TREE_ROOT/lib/modules/$VM_KVER/extra/mlnx-nvme/host/nvme-core.ko"
assert_ok load_oot nvme
fake_container_stop
for d in $shared; do
	assert_loaded "$d"
	if tree_ships "$VM_OOT_ROOT" "$d"; then
		assert_contains "$(module_taint "$d")" O "$d (container tree) taint"
	else
		assert_eq "" "$(module_taint "$d")" "$d (host tree) taint"
	fi
done
assert_contains "$(module_taint nvme)" "O" "oot nvme taint"
assert_contains "$(module_taint nvme_core)" "O" "oot nvme_core taint"
vm_log "taints: nvme=$(module_taint nvme) nvme_core=$(module_taint nvme_core)"
assert_eq "$(modinfo -F srcversion "$tree/extra/mlnx-nvme/host/nvme.ko")" \
	"$(cat /sys/module/nvme/srcversion)" "live nvme srcversion (= container .ko)"

wait_for_block "$dev" 30 || vm_fail "$dev did not come back under the oot driver"
assert_eq OK "$(read_dev "$dev")" "read of $dev under the oot driver"
assert_ok mkfs_ext4 "$dev"

# And back to the in-tree stack.
assert_unload_result nvme OK
assert_unload_result nvme_core OK
# The container's own builds of shared modules go too: the in-tree stack
# comes back whole.
for d in $shared; do
	tree_ships "$VM_OOT_ROOT" "$d" && assert_unload_result "$d" OK
done
assert_ok modprobe nvme
for d in $shared; do
	assert_eq "" "$(module_taint "$d")" "$d taint after the swap back (in-tree)"
done
assert_eq "" "$(module_taint nvme)" "in-tree nvme taint after the swap back"
wait_for_block "$dev" 30 || vm_fail "$dev did not come back under the in-tree driver"
assert_eq OK "$(read_dev "$dev")" "read of $dev under the in-tree driver"
