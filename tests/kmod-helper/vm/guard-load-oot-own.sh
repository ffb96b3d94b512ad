# SPDX-License-Identifier: Apache-2.0
# guard-load-oot.sh on the container root of the 'own' stand-in (its build
# ships its own nvme_auth, built from drivers/nvme/common), in a boot of
# run-vm.sh --oot-both, which holds both roots: the two shapes share one
# boot (tests/vm/sequence.sh -- guard-load-oot-link.sh
# guard-load-oot-own.sh), the node reset between.
. "$VM_LIB"
[ -n "${VM_OOT_ROOT_OWN:-}" ] || vm_skip "no 'own' container root (run-vm.sh --oot --oot-both)"
case " ${VM_OOT_SHAPES:-} " in
*" own "*) ;;
*) vm_skip "kernel $VM_KVER has one stand-in shape (${VM_OOT_SHAPES:-none}): no modular drivers/nvme/common" ;;
esac
# exec: the verdict is guard-load-oot.sh's (this shell's EXIT trap never runs)
VM_OOT_ROOT=$VM_OOT_ROOT_OWN VM_OOT_SHAPE=own exec bash "${0%/*}/guard-load-oot.sh"
