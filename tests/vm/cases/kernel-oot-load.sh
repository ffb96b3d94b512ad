# SPDX-License-Identifier: Apache-2.0
# The out-of-tree nvme build (stand-in for NVIDIA's mlnx-nvme, from
# build-oot-nvme.sh, laid out as a driver container's root in $VM_OOT_ROOT)
# replaces the in-tree stack on a free namespace: unload nvme, nvme_core and
# t10_pi, insmod the container's modules with t10_pi resolved from the HOST
# tree, check the taint and that the namespace is back, then swap back.
# Layout: plain.  Needs run-vm.sh --oot.
# shellcheck source=../lib.sh
. "$VM_LIB"

[ -n "${VM_OOT_ROOT:-}" ] || vm_skip "no out-of-tree build (run-vm.sh --oot)"
tree=$VM_OOT_ROOT/lib/modules/$VM_KVER
dev=$(plain_namespace) || vm_fatal "no plain nvme namespace"

assert_file "$tree/extra/mlnx-nvme/host/nvme.ko"
assert_contains "$(cat "$tree/modules.dep")" "extra/mlnx-nvme/host/nvme.ko: extra/mlnx-nvme/host/nvme-core.ko" "container modules.dep"
assert_not_contains "$(cat "$tree/modules.dep")" "t10-pi" "container modules.dep (host-only deps dropped)"
assert_contains "$(modinfo -F depends "$tree/extra/mlnx-nvme/host/nvme-core.ko")" "t10-pi" "nvme-core.ko depends"

assert_loaded nvme
assert_eq "" "$(module_taint nvme)" "in-tree nvme taint"

# Unload the in-tree stack, holders first (what the guard's plan does).
assert_unload_result nvme OK
assert_unload_result nvme_core OK
assert_unload_result t10_pi OK
assert_not_loaded nvme_core
assert_not_loaded t10_pi

# Load the container's build, from the container's root as the node sees it
# (/proc/<pid>/root); t10_pi must come from the host tree.
fake_container_start
OOT_TREE_ROOT=/proc/$VM_CONTAINER_PID/root
assert_file "$OOT_TREE_ROOT/lib/modules/$VM_KVER/extra/mlnx-nvme/host/nvme-core.ko"
assert_ok load_oot nvme
fake_container_stop
assert_loaded t10_pi
assert_eq "" "$(module_taint t10_pi)" "t10_pi (host tree) taint"
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
assert_ok modprobe nvme
assert_eq "" "$(module_taint nvme)" "in-tree nvme taint after the swap back"
wait_for_block "$dev" 30 || vm_fail "$dev did not come back under the in-tree driver"
assert_eq OK "$(read_dev "$dev")" "read of $dev under the in-tree driver"
