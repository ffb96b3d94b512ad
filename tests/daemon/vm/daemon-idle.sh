#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# No driver container at all: for 20 s the daemon must touch nothing and not
# wake up, but for its own periodic work: the watchdog pings (WatchdogSec=2min
# in the shipped unit: sd-event pings every 60-90 s), the metrics file's
# refresh (every 30 s) and the node labels' refresh (every 3 min). Measured:
# the daemon's context switches (voluntary + involuntary, /proc/<pid>/status)
# and CPU time (utime + stime, /proc/<pid>/stat) before and after; a ping is
# seen in systemd's WatchdogTimestampMonotonic, a refresh in its file's
# change time. Each may cost a wakeup or two and a CPU tick. (Where the 20 s
# fall after the start is the machine's timing: on a busy one the 30 s
# refresh lands inside them, and that is not a fault.)
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
# The periodic files' change times, one line each (empty: absent).
METRICS_FILE=/var/lib/nvme-swapguard/nvme-swapguard.prom
LABELS_FILE=/run/nvme-swapguard/node-labels
periodic_ts() {
	local f
	for f in "$METRICS_FILE" "$LABELS_FILE"; do echo "$f $(stat -L -c %z "$f" 2>/dev/null)"; done
}
# periodic_writes BEFORE AFTER: how many of the two files changed between.
periodic_writes() { diff <(echo "$1") <(echo "$2") | grep -c '^>' || true; }
refcnt=$(module_refcnt nvme_core)
state_mtime=$(stat -c %Y "$SG_STATE_FILE")
# Let the start settle (bus replies, the first files written): until the
# daemon has not switched for 3 s, 60 s at most (a daemon that never settles
# fails the count below anyway).
prev=$(switches)
for ((i = 0; i < 20; i++)); do sleep 3; cur=$(switches); [ "$cur" = "$prev" ] && break; prev=$cur; done
s0=$(switches) c0=$(cpu_ticks) w0=$(watchdog_ts) p0=$(periodic_ts) t0=$SECONDS
sg_step "idle for 20 s: counting the daemon's wakeups"
sleep 20
s1=$(switches) c1=$(cpu_ticks) w1=$(watchdog_ts) p1=$(periodic_ts) t1=$SECONDS
pings=0
[ "$w0" != "$w1" ] && pings=1
refreshes=$(periodic_writes "$p0" "$p1")
# A ping costs a wakeup or two; a refresh writes a file (temp file, fsync,
# rename: blocking I/O, each a switch). What the check catches, a loop or a
# poll, is hundreds of wakeups in 20 s. The CPU time is no count: under TCG
# the guest charges a task for the wall time its vCPU thread spent
# preempted on the host, so on a busy host a ping and a refresh read as 35
# ticks (10 ms) and more (busy run, load 10-11). It tells a spinning daemon
# (a whole window's ticks, 100 per second) from a waiting one, with a wide
# margin: at most a tenth of the window.
allowed_switches=$((2 * pings + 20 * refreshes))
wakeups=$((s1 - s0))
vm_log "measured over $((t1 - t0)) s: $wakeups context switches, $((c1 - c0)) CPU ticks, $pings watchdog ping(s), $refreshes periodic file refresh(es)"
if [ "$wakeups" -le "$allowed_switches" ]; then
	vm_pass "idle: $wakeups context switches for $pings watchdog ping(s) and $refreshes refresh(es)"
else
	vm_fail "idle: $wakeups context switches, only $pings watchdog ping(s) and $refreshes refresh(es) to explain them"
fi
allowed_ticks=$(((t1 - t0) * 100 / 10))
if [ $((c1 - c0)) -le "$allowed_ticks" ]; then
	vm_pass "idle: $((c1 - c0)) CPU ticks (10 ms) in $((t1 - t0)) s (a spinning daemon: $(((t1 - t0) * 100)); at most $allowed_ticks)"
else
	vm_fail "idle: $((c1 - c0)) CPU ticks (10 ms) in $((t1 - t0)) s: more than a tenth of the window ($allowed_ticks), a daemon that spins"
fi
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
