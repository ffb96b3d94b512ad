#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The daemon runs as its shipped unit (Restart=on-failure, RestartSec=5s) and
# is SIGKILLed while it waits for the ready file, the in-tree stack unloaded.
# systemd restarts it; it must resume from its state file (not restore, not
# unload again), keep the reload block, and complete the swap when the ready
# file appears, reporting the namespaces it recorded before the first unload.
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
sg_setup
dev=$SG_DEV
assert_eq on-failure "$(systemctl show -P Restart "$SG_UNIT")" "Restart="

sg_container_new mofed-container nvidia-network-operator
sg_container_start
sg_wait_state unloaded-waiting-driver
assert_not_loaded nvme

first=$(sg_main_pid)
guard_inode=$(stat -c %i "$SG_GUARD")
sg_step "SIGKILL to the daemon (pid $first) while it waits for the ready file"
kill -KILL "$first"
sg_wait_restarted "$first" || :
assert_ne "$first" "$(sg_main_pid)" "MainPID after the restart"
assert_eq active "$(systemctl is-active "$SG_UNIT")" "unit state after the restart"
assert_eq 1 "$(systemctl show -P NRestarts "$SG_UNIT")" "NRestarts"
vm_log "restarted as pid $(sg_main_pid)"

assert_eq unloaded-waiting-driver "$(sg_state)" "state after the restart"
assert_not_loaded nvme
assert_file "$SG_GUARD"
# Removed by the unit's ExecStopPost= when the killed daemon could not, and
# written again by the restarted one: a new file.
assert_ne "$guard_inode" "$(stat -c %i "$SG_GUARD")" "reload block inode (removed at the kill, rewritten at the restart)"
assert_contains "$(sg_journal_text)" "previous state unloaded-waiting-driver, container ${SG_CID:0:12}" \
	"the restarted daemon's reconcile"
sg_assert_daemon_sees_kallsyms
[ "$(sg_journal_entries STARTED | wc -l)" = 2 ] && vm_pass "two STARTED entries" || vm_fail "STARTED entries: $(sg_journal_entries STARTED)"

sg_container_compiled
sg_ready
sg_wait_state swapped
sg_assert_oot
assert_no_file "$SG_GUARD"
wait_for_block "$dev" 30
assert_journal SWAPPED SWAPGUARD_MODULE=nvme SWAPGUARD_ORIGIN=nvidia SWAPGUARD_PID="$SG_CPID"
assert_journal NAMESPACES_BACK
assert_contains "$(sg_journal_entries NAMESPACES_BACK)" "all 1 NVMe namespaces" "namespaces recorded before the kill"
assert_eq 1 "$(sg_journal_entries UNLOADED | wc -l)" "UNLOADED entries (no second unload)"
assert_no_journal RESTORED
sg_show_journal
sg_stop
sg_container_stop
