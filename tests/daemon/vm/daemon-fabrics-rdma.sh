#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# NVMe/RDMA across the swap (issue 27; -Dvm_matrix=full), one boot of a
# real kernel (systemd mode, --oot, the shipped unit, lib-swapguard.sh's
# driver container): the node's PCIe drive and an NVMe/RDMA connection over
# soft-RoCE inside the guest (rdma_rxe on a veth, nvmet_rdma;
# tests/vm/lib-nvmet.sh, FIELD-NOTES section 11). The container has
# UNLOAD_STORAGE_MODULES=true (its entrypoint refuses to start with
# nvme_rdma loaded otherwise, FIELD-NOTES section 8), so the daemon loads
# the container's nvme_rdma at the ready file and reconnects through it.
# The stand-in's nvme-rdma links the host's RDMA core (ib_core, rdma_cm):
# the container's openibd would bring its own on a real node.
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
. "$VM_HARNESS/lib-nvmet.sh"
declare -F sg_container_compiled >/dev/null || vm_skip "needs lib-swapguard.sh's driver container"
why=$(nvmet_rdma_unusable) && vm_skip "NVMe/RDMA over soft-RoCE: $why"
tree_ships "$VM_OOT_ROOT" nvme_rdma || vm_skip "the stand-in has no nvme-rdma.ko (its build needs the RDMA headers)"

assert_ok nvmet_tcp_target_up 64
assert_ok nvmet_rdma_port_up
assert_ok nvmet_rdma_connect
ctrl=$(fabrics_ctrl) || vm_fatal "no rdma controller"
assert_eq rdma "$(cat "/sys/class/nvme/$ctrl/transport")" "the connection's transport"
head=$(fabrics_head)
assert_ok fabrics_write "$head" 256
sg_setup

# Only nvme_rdma is the container's to unload (STORAGE_MODULES): its
# default list also takes nvmet_rdma, which serves this test's target.
sg_container_new --env UNLOAD_STORAGE_MODULES=true --env STORAGE_MODULES=nvme_rdma \
	mofed-container nvidia-network-operator
sg_container_start
sg_wait_state unloaded-waiting-driver
assert_not_loaded nvme_rdma
assert_eq absent "$(fabrics_ctrl_state)" "the rdma connection after the unload"
assert_journal FABRICS_DROP SWAPGUARD_FABRICS_TRANSPORT=rdma
sg_container_compiled
sg_ready
sg_wait_state swapped 120
assert_contains "$(module_taint nvme_rdma)" O "nvme_rdma taint (the container's build)"
assert_eq live "$(fabrics_ctrl_state)" "the rdma connection after the swap"
assert_journal FABRICS_RECONNECTED SWAPGUARD_FABRICS_TRANSPORT=rdma SWAPGUARD_FABRICS_OUTCOME=reconnected
head=$(fabrics_wait_head 30) || vm_fatal "no head after the swap"
assert_ok fabrics_verify "$head"
sg_show_journal
sg_container_stop
sg_stop
nvmet_tcp_target_down
