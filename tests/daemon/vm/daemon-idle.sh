#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# No driver container at all: for 20 s the daemon must touch nothing and not
# wake up, but for its watchdog pings (WatchdogSec=2min in the shipped unit:
# sd-event pings every 60-90 s). Measured: the daemon's context switches
# (voluntary + involuntary, /proc/<pid>/status) and CPU time (utime + stime,
# /proc/<pid>/stat) before and after; the pings are counted from systemd's
# WatchdogTimestampMonotonic. Each ping may cost a wakeup or two.
# Then, for the record only (not a verdict): what unrelated churn in /run
# costs while /run/mellanox does not exist yet.
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
sg_setup   # CRI-O runs (its store exists), no driver container
pid=$(sg_main_pid)

switches() {
	awk '/^(voluntary|nonvoluntary)_ctxt_switches:/ { n += $2 } END { print n }' "/proc/$pid/status"
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
watchdog_ts() { systemctl show -P WatchdogTimestampMonotonic "$SG_UNIT"; }

refcnt=$(module_refcnt nvme_core)
state_mtime=$(stat -c %Y "$SG_STATE_FILE")
sleep 3   # let the start settle (bus replies, first watchdog ping)
s0=$(switches) c0=$(cpu_ticks) w0=$(watchdog_ts) t0=$SECONDS
sg_step "idle for 20 s: counting the daemon's wakeups"
sleep 20
s1=$(switches) c1=$(cpu_ticks) w1=$(watchdog_ts) t1=$SECONDS
pings=0
[ "$w0" != "$w1" ] && pings=1
wakeups=$((s1 - s0))
vm_log "measured over $((t1 - t0)) s: $wakeups context switches, $((c1 - c0)) CPU ticks, $pings watchdog ping(s)"
if [ "$wakeups" -le $((2 * pings)) ]; then
	vm_pass "idle: $wakeups context switches for $pings watchdog ping(s)"
else
	vm_fail "idle: $wakeups context switches, only $pings watchdog ping(s) to explain them"
fi
if [ $((c1 - c0)) -le $pings ]; then vm_pass "idle: $((c1 - c0)) CPU ticks (10 ms) for $pings ping(s)"
else vm_fail "idle: $((c1 - c0)) CPU ticks (10 ms), only $pings watchdog ping(s)"; fi
assert_eq idle "$(sg_state)" "daemon state"
assert_eq "$state_mtime" "$(stat -c %Y "$SG_STATE_FILE")" "state file mtime (not rewritten)"
sg_assert_in_tree
assert_eq "$refcnt" "$(module_refcnt nvme_core)" "nvme_core refcnt"
assert_no_file "$SG_GUARD"
assert_no_journal CONTAINER_SEEN
assert_no_journal UNLOADED

# For the record: the ready file's watch sits on the deepest existing
# ancestor of /run/mellanox/drivers/.driver-ready, i.e. /run itself, until
# the driver container creates /run/mellanox.
s0=$(switches)
for i in $(seq 1 10); do echo $i >/run/unrelated-$i.pid; rm -f /run/unrelated-$i.pid; done
sleep 1
vm_log "for the record: 10 files written and removed in /run cost $(( $(switches) - s0 )) context switches"
mkdir -p /run/mellanox/drivers
sleep 1
s0=$(switches)
for i in $(seq 1 10); do echo $i >/run/unrelated-$i.pid; rm -f /run/unrelated-$i.pid; done
sleep 1
vm_log "for the record: the same once /run/mellanox/drivers exists: $(( $(switches) - s0 )) context switches"
sg_stop
