#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# NVMe/RDMA across the swap (-Dvm_matrix=full), one boot of a
# real kernel (--oot): the node's PCIe drive and an NVMe/RDMA connection
# over soft-RoCE inside the guest (rdma_rxe on a veth, nvmet_rdma;
# tests/vm/lib-nvmet.sh, FIELD-NOTES section 11), swapped by the CLI
# (`unload`, `load --from` the stand-in's tree, `restore`): the connection
# comes back on the container's nvme_rdma (taint O), then on the in-tree
# one, its data intact.
# Not through the daemon and lib-swapguard.sh's driver container: its
# entrypoint, like NVIDIA's (`openibd restart`, check_if_ok_to_stop in
# mlnx-ofa_kernel's ofed_scripts), refuses to start while nvmet_rdma is in
# use ("Please close all nvmet sessions and unload 'nvmet_rdma' module", seen
# here), and a target in the guest's own kernel is always in use. The
# daemon's reconnect is the same library call for every transport
# (vm-daemon-fabrics: tcp); which transports it loads at the ready file is
# the fault rows' lifecycle:nvme-rdma:*.
# The stand-in's nvme-rdma links the host's RDMA core (ib_core, rdma_cm):
# a driver container's openibd would bring its own on a real node.
. "$VM_LIB"
. "$VM_HARNESS/lib-nvmet.sh"
[ -n "${VM_OOT_ROOT:-}" ] || vm_skip "needs run-vm.sh --oot"
why=$(nvmet_rdma_unusable) && vm_skip "NVMe/RDMA over soft-RoCE: $why"
tree_ships "$VM_OOT_ROOT" nvme_rdma || vm_skip "the stand-in has no nvme-rdma.ko (its build needs the RDMA headers)"
tree=$VM_OOT_ROOT/lib/modules/$VM_KVER
kmod() {
	KMOD_OUT=$("$VM_KMOD_HELPER" "$@" 2>&1)
	KMOD_RC=$?
	vm_log "\$ nvme-swapguard-kmod $* -> exit $KMOD_RC"
	printf '%s\n' "$KMOD_OUT" | sed 's/^/#   /'
}
check_rdma() {
	local head ctrl
	head=$(fabrics_wait_head 30) || { vm_fail "$1: no head"; return 1; }
	ctrl=$(fabrics_ctrl)
	assert_eq "rdma live" "$(cat "/sys/class/nvme/$ctrl/transport") $(fabrics_ctrl_state)" "$1: the connection"
	assert_ok fabrics_verify "$head"
}

assert_ok nvmet_tcp_target_up 64
assert_ok nvmet_rdma_port_up
assert_ok nvmet_rdma_connect
head=$(fabrics_head)
assert_ok fabrics_write "$head" 256
check_rdma "before"
vm_log "modules: $(loaded_of nvme_rdma rdma_cm ib_core rdma_rxe nvmet_rdma)"

kmod unload
assert_eq 0 "$KMOD_RC" "unload"
assert_not_loaded nvme_rdma
assert_eq absent "$(fabrics_ctrl_state)" "the rdma connection after the unload"
assert_file /run/nvme-swapguard-fabrics/record.json
kmod load --from "$tree"
assert_eq 0 "$KMOD_RC" "load --from the container's tree"
assert_contains "$(module_taint nvme_rdma)" O "nvme_rdma taint (the container's build)"
check_rdma "after load --from"
kmod unload
assert_eq 0 "$KMOD_RC" "unload of the container's build"
kmod restore
assert_eq 0 "$KMOD_RC" "restore"
assert_eq "" "$(module_taint nvme_rdma)" "nvme_rdma taint after the restore (in-tree)"
check_rdma "after the restore"
assert_no_file /run/nvme-swapguard-fabrics/record.json
nvmet_tcp_target_down
