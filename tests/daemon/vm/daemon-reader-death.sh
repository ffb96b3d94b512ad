#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The daemon's privileged reader (sandbox/privileged-reader.h) is SIGKILLed
# while the daemon waits for the ready file, the in-tree stack unloaded.
# Without it the daemon is blind (no namespace can be checked, the store
# cannot be followed): it must say how its reader ended, stop as on
# SIGTERM (the in-tree stack restored: a stop cannot know a restart
# follows) and exit non-zero; the shipped unit's Restart=on-failure starts
# it again, with a new reader, and the start's reconcile swaps again and
# completes the swap when the ready file appears.
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
sg_setup
dev=$SG_DEV
assert_eq on-failure "$(systemctl show -P Restart "$SG_UNIT")" "Restart="

# The reader: the daemon's child that kept CAP_DAC_READ_SEARCH (the daemon
# gave it up: sg_assert_daemon_caps).
sg_reader_pid() {
	local pid child prm
	pid=$(sg_main_pid)
	for child in $(cat "/proc/$pid/task/"*/children 2>/dev/null); do
		prm=$(sed -n 's/^CapPrm:[[:space:]]*//p' "/proc/$child/status" 2>/dev/null)
		[ -n "$prm" ] && (( 0x$prm & (1 << 2) )) && { echo "$child"; return 0; }
	done
	return 1
}

sg_container_new mofed-container nvidia-network-operator
sg_container_start
sg_wait_state unloaded-waiting-driver
assert_not_loaded nvme

first=$(sg_main_pid)
restarts=$(systemctl show -P NRestarts "$SG_UNIT")
reader=$(sg_reader_pid) || vm_fatal "no privileged reader among the daemon's children (the unit grants CAP_DAC_READ_SEARCH)"
sg_step "SIGKILL to the daemon's privileged reader (pid $reader; the daemon is pid $first)"
kill -KILL "$reader"
sg_wait_restarted "$first" 90 || :
assert_ne "$first" "$(sg_main_pid)" "MainPID after the restart (the daemon exited on its reader's end)"
assert_eq active "$(systemctl is-active "$SG_UNIT")" "unit state after the restart"
assert_eq $((restarts + 1)) "$(systemctl show -P NRestarts "$SG_UNIT")" "NRestarts (Restart=on-failure: a non-zero exit)"
assert_contains "$(sg_journal_text)" "The privileged reader (pid $reader) is gone: killed by signal 9 (SIGKILL)" \
	"the journal says how the reader ended"
# The stop restored the stack before the exit: never a node without its
# driver, whether or not the unit restarts the daemon.
assert_journal STOP_RESTORED SWAPGUARD_ORIGIN=in-tree SWAPGUARD_CONTAINER_ID="$SG_CID"
assert_contains "$(sg_journal_text)" "previous state idle, container ${SG_CID:0:12}" "the restarted daemon's reconcile"
sg_assert_daemon_caps
reader2=$(sg_reader_pid) || vm_fail "the restarted daemon has no privileged reader"
assert_ne "$reader" "$reader2" "a new reader"

sg_wait_state unloaded-waiting-driver
sg_container_compiled
sg_ready
sg_wait_state swapped
sg_assert_oot
assert_no_file "$SG_GUARD"
wait_for_block "$dev" 30
assert_journal SWAPPED SWAPGUARD_MODULE=nvme SWAPGUARD_ORIGIN=nvidia SWAPGUARD_PID="$SG_CPID"
assert_eq 2 "$(sg_journal_entries UNLOADED | wc -l)" "UNLOADED entries (one per daemon)"
sg_show_journal
sg_stop
sg_container_stop
