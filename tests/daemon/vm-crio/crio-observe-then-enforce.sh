#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Mode= on a real kernel through the real CRI-O, one boot, one
# driver pod: the daemon first observes (Mode=observe): it follows
# mofed-container through its compile and its ready file and says what it
# would do, while the in-tree stack, its lines in /proc/modules (reference
# counts included), the reload flag and the namespace stay as they were.
# Then the file says Mode=enforce and the unit restarts, as the node
# disruption policy does on a MachineConfig change: the daemon acts from
# where the node is (the container is ready already) and swaps.
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-crio.sh"
crio_require

dev=$(first_namespace) || vm_fatal "no namespace"
sg_assert_in_tree
sg_start_dbus || vm_fatal "no system bus: CRI-O's systemd cgroup manager needs one"
conf=/etc/nvme-swapguard/nvme-swapguard.conf
mkdir -p "${conf%/*}"
printf '[Swap]\nMode=observe\n' >"$conf"
sg_install_unit
sg_start
sg_wait_state idle
crio_setup
# the stack modules' lines: name, size, refcount, holders
stack_lines() { grep -E '^(nvme|nvme_core|nvme_auth|t10_pi) ' /proc/modules | cut -d' ' -f1-4 | sort; }
before=$(stack_lines)

sg_step "Mode=observe: kubelet starts the driver pod through CRI-O"
crio_driver_pod
sg_wait_state would-unload
assert_journal WOULD_UNLOAD SWAPGUARD_CONTAINER_ID="$CRIO_CID" SWAPGUARD_MODE=observe
assert_journal MODE SWAPGUARD_MODE=observe
sg_step "mofed-container finishes its compile and creates the ready file"
crio_compiled
sg_wait_state would-swap
assert_journal WOULD_LOAD SWAPGUARD_MODE=observe SWAPGUARD_CONTAINER_ID="$CRIO_CID"
assert_no_journal UNLOADED
assert_no_journal PINNED
sg_assert_in_tree
assert_eq "$before" "$(stack_lines)" "the stack's /proc/modules lines (refcounts) after observe"
assert_no_file /run/nvme-swapguard/reload-blocked # the reload flag (the gate is the unit's, in both modes)
assert_ok test -b "$dev"
assert_eq observe "$(python3 -S -c 'import json,sys; print(json.load(open(sys.argv[1]))["mode"])' "$SG_STATE_FILE")" \
	"the state file's mode"

sg_step "Mode=enforce in the file; the unit restarts (the node disruption policy's action)"
printf '[Swap]\nMode=enforce\n' >"$conf"
systemctl restart "$SG_UNIT" || vm_fatal "systemctl restart $SG_UNIT"
sg_wait_state swapped
sg_assert_oot
wait_for_block "$dev" 30
assert_ok test -b "$dev"
assert_journal MODE SWAPGUARD_MODE=enforce
assert_journal UNLOADED SWAPGUARD_CONTAINER_ID="$CRIO_CID" SWAPGUARD_MODE=enforce
assert_journal SWAPPED SWAPGUARD_MODULE=nvme SWAPGUARD_ORIGIN=nvidia SWAPGUARD_CONTAINER_ID="$CRIO_CID"
assert_eq "$(modinfo -F srcversion "/proc/$CRIO_CPID/root/lib/modules/$VM_KVER/extra/mlnx-nvme/host/nvme.ko")" \
	"$(cat /sys/module/nvme/srcversion)" "live nvme srcversion (= the container's nvme.ko)"
sg_show_journal
