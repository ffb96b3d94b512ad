#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End to end on a real kernel (tests/vm, systemd mode, --oot): the daemon runs
# as its shipped unit (sandbox included) under the host's systemd as PID 1,
# with a real system bus; CRI-O is simulated faithfully (lib-swapguard.sh).
# Current image: the daemon unloads the in-tree stack while the container
# "compiles", then loads the container's build from /proc/<pid>/root when the
# ready file appears. With the argument --demo (tests/demo.sh; run-vm.sh
# hands script arguments to the guest) it narrates the steps and prints the
# daemon's journal and `nvme-swapguard-kmod status` at the end.
[ "${1:-}" = --demo ] && DEMO=1
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
sg_require

dev=$(first_namespace) || vm_fatal "no namespace"
sg_step "The node: Linux $(uname -r) under QEMU, NVMe namespace $dev on the in-tree driver"
sg_assert_in_tree

sg_step "Starting nvme-swapguard.service (the shipped unit) with a D-Bus system bus"
bus=0
sg_start_dbus && bus=1
sg_install_unit
sg_start
sg_wait_state idle
[ $bus = 1 ] && sg_assert_on_bus
sg_assert_daemon_sees_kallsyms

sg_step "CRI-O starts the NVIDIA driver container (mofed-container in nvidia-network-operator)"
sg_container_new mofed-container nvidia-network-operator
sg_container_start
vm_log "container ${SG_CID:0:12}: pid $SG_CPID in crio-${SG_CID:0:12}...scope, root $SG_CROOT"

sg_step "While the container compiles, the daemon unloads the in-tree NVMe stack"
sg_wait_state unloaded-waiting-driver
assert_not_loaded nvme
assert_not_loaded nvme_core
assert_file "$SG_GUARD"
assert_fails modprobe nvme
assert_journal UNLOADED SWAPGUARD_CONTAINER_ID="$SG_CID"

sg_step "The container finished compiling and creates the ready file $SG_READY"
sg_container_compiled
sg_ready

sg_step "The daemon loads the container's build from /proc/$SG_CPID/root/lib/modules/$VM_KVER"
sg_wait_state swapped
sg_assert_oot
assert_no_file "$SG_GUARD"
wait_for_block "$dev" 30
assert_ok test -b "$dev"
assert_journal SWAPPED SWAPGUARD_MODULE=nvme SWAPGUARD_ORIGIN=out-of-tree
assert_journal NAMESPACES_BACK
assert_contains "$(sg_journal_text)" "Loaded" "journal says the daemon loaded the build"
assert_contains "$(systemctl show -P StatusText "$SG_UNIT")" "swapped" "STATUS="
# The unit's ExecStartPre= rebuilt the catalog: journalctl -x explains.
assert_contains "$(journalctl --list-catalog 2>/dev/null | grep "$(sg_message_id SWAPPED)")" \
	"$(sg_message_id SWAPPED)" "journalctl --list-catalog"

sg_step "Swapped: nvme is now the out-of-tree build (taint $(module_taint nvme)), $dev is back"
if [ "${DEMO:-0}" = 1 ]; then
	sg_step "The daemon's journal (journalctl -u nvme-swapguard)"
	journalctl -u "$SG_UNIT" --no-pager -q -o short-monotonic
	sg_step "Its structured report of the swap (journalctl -u nvme-swapguard MESSAGE_ID=$(sg_message_id SWAPPED) -o json)"
	journalctl -u "$SG_UNIT" MESSAGE_ID="$(sg_message_id SWAPPED)" --no-pager -q -o json | /usr/bin/python3 -c '
import json, sys
for line in sys.stdin:
    e = json.loads(line)
    print("MESSAGE=" + e["MESSAGE"])
    for k in sorted(k for k in e if k.startswith("SWAPGUARD_")):
        print("    %s=%s" % (k, e[k]))'
	sg_step "systemctl status nvme-swapguard"
	systemctl status --no-pager -n 0 "$SG_UNIT" | sed -n '1,8p'
	sg_step "The daemon's state file $SG_STATE_FILE"
	cat "$SG_STATE_FILE"
	echo
	sg_step "nvme-swapguard-kmod status"
	"$VM_KMOD_HELPER" status
	echo
else
	sg_show_journal
fi

sg_stop
sg_container_stop
