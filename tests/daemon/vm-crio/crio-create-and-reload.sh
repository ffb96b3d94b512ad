#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Real CRI-O 1.27.8 (lib-crio.sh), the shipped unit; one boot for the
# scenarios where what the node shows is not what it seems:
#  1. "a pid" means "created": runc writes the pidfile at CreateContainer and
#     its process waits in `runc init` until StartContainer. A created
#     container has not started: the daemon must not unload for it. From
#     inside the shipped unit runc 1.1.5's init reads: name "runc:[2:INIT]",
#     exe "/" while the unit ran as root (a detached bind mount of runc,
#     try_bindfd; as its dynamic user the daemon says "exe unknown"),
#     /run/runc/<id>/exec.fifo present (daemon/container-started.h).
#  2. a start that fails after create: the entrypoint cannot be executed
#     (ENOEXEC at start; create succeeded). The daemon must never have
#     unloaded the in-tree stack for a container that never ran.
#  3. kubelet's next attempt (new container id) starts; while the daemon
#     waits for its ready file, `systemctl daemon-reload` (systemd sends
#     UnitRemoved then UnitNew for every crio-*.scope, systemd#376): that is
#     not an exit, the daemon goes on waiting and swaps at the ready file;
#  4. a daemon-reload while swapped: the state file's container.id is still
#     the followed container's (a reload must not empty it);
#  5. kubelet then stops and removes the pod: the daemon sees the stop (the
#     id a reload would have lost), forgets the container and stays swapped:
#     RESTORE_DRIVER_ON_POD_TERMINATION=false, NVIDIA's build stays loaded.
# Each reload runs beside a bus monitor: systemd must have sent UnitRemoved
# for the container's crio scope, and the daemon must be the same peer of
# the system bus before and after it, or "nothing happened" proves nothing.
# One boot: 94.8 s and 109.6 s (63 checks), two runs on 2026-12-03 (steps 4 and 5:
# about 22 s of it).
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-crio.sh"
crio_case_begin

# state_container_id: container.id in the state file, the followed
# container (daemon/state-file.c: the "container" object is absent when none
# is followed). Not build_container: that one outlives a forgotten container.
state_container_id() {
	/usr/bin/python3 -S -c 'import json, sys
c = json.load(open(sys.argv[1])).get("container") or {}
print(c.get("id") or "")' "$SG_STATE_FILE"
}
state_field() { /usr/bin/python3 -S -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]) or "")' "$SG_STATE_FILE" "$1"; }
# daemon_bus_name: the daemon's unique name on the system bus, "" when off it.
daemon_bus_name() {
	busctl --system list --no-pager --no-legend --unique 2>/dev/null |
		awk -v p="$(sg_main_pid)" '$2 == p { print $1; exit }'
}
gone_lines() { sg_journal_text | grep -c "^Driver container ${1:0:12} is gone" || :; }

# reload_watched CID: `systemctl daemon-reload` while a bus monitor records
# systemd's Manager signals. Checks that the reload reached the daemon: its
# connection is the same before and after (sg_assert_on_bus: subscribed,
# listed), and systemd did send UnitRemoved for crio-CID.scope (without a
# subscriber it sends none, and a daemon off the bus sees none: a test of
# the reload would then pass for nothing).
reload_watched() {
	local cid=$1 out=/var/tmp/reload-monitor.out err=/var/tmp/reload-monitor.err name mon i
	name=$(daemon_bus_name)
	assert_ne "" "$name" "the daemon's name on the system bus before the reload"
	stdbuf -oL busctl --system monitor --json=short \
		--match "type='signal',interface='org.freedesktop.systemd1.Manager'" \
		>"$out" 2>"$err" &
	mon=$!
	for ((i = 0; i < 100; i++)); do
		grep -q "Monitoring bus message stream" "$err" 2>/dev/null && break
		vm_nap 0.1
	done
	grep -q "Monitoring bus message stream" "$err" || vm_log "busctl monitor: $(cat "$err")"
	systemctl daemon-reload
	sleep 3
	kill "$mon" 2>/dev/null
	wait "$mon" 2>/dev/null
	# what systemd sent for the scope, in order (Reloading brackets it)
	local seen
	seen=$(/usr/bin/python3 -S -c 'import json, sys
scope = "crio-%s.scope" % sys.argv[2]
for line in open(sys.argv[1]):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    d = (m.get("payload") or {}).get("data") or []
    if m.get("member") == "Reloading":
        print("Reloading(%s)" % str(d[0]).lower())
    elif m.get("member") in ("UnitRemoved", "UnitNew") and d and d[0] == scope:
        print(m["member"])' "$out" "$cid" | tr '\n' ' ')
	vm_log "systemd's signals for crio-${cid:0:12}.scope during the reload: ${seen:-none}"
	[ -n "$seen" ] || head -c 2000 "$out" | sed 's/^/#   monitor: /'
	assert_contains "$seen" "Reloading(true) UnitRemoved" "UnitRemoved of the container's scope, inside the reload"
	sg_assert_on_bus
	assert_eq "$name" "$(daemon_bus_name)" "the daemon's connection to the bus (the same through the reload)"
	rm -f "$out" "$err"
}

sg_step "kubelet creates mofed-container; its entrypoint cannot be executed"
crio_pod_new
crio_ctr_create mofed-container 0 /bin/broken-entrypoint
bad=$CRIO_CID
assert_file "$CRIO_RUNROOT/overlay-containers/$bad/userdata/pidfile"
crio_footprint "$bad"
sleep 3
assert_eq idle "$(sg_state)" "daemon state while the container is only created"
# runc 1.1.5's init, as the daemon sees it from its sandbox: named
# "runc:[2:INIT]", exec.fifo present (exe: see the header)
assert_contains "$(journalctl -u "$SG_UNIT" --no-pager -q -o cat)" \
	"Container ${bad:0:12} is created (pid $(cat "$CRIO_RUNROOT/overlay-containers/$bad/userdata/pidfile")), not started (process name \"runc:[2:INIT]\"" \
	"the journal says why the created container is not acted on"
sg_assert_in_tree
if crio_ctr_start "$bad"; then
	vm_log "crictl start returned success; the container is $(crio_ctr_state "$bad")"
else
	vm_log "crictl start failed, as expected"
fi
crio_wait_ctr_state CONTAINER_EXITED 30 "$bad" ||
	[ "$(crio_ctr_state "$bad")" = CONTAINER_CREATED ] ||
	vm_fail "the broken container is $(crio_ctr_state "$bad")"
sleep 3
sg_assert_in_tree
assert_no_journal UNLOADED SWAPGUARD_CONTAINER_ID="$bad"
wait_for_block "$dev" 30
assert_ok test -b "$dev"

sg_step "kubelet removes it and creates attempt 1 (a new id) that runs"
crictl rm "$bad" >/dev/null 2>&1 || vm_log "crictl rm ${bad:0:12} failed"
crio_ctr_create mofed-container 1
assert_ne "$bad" "$CRIO_CID" "the new attempt's container id"
crio_ctr_start || vm_fatal "mofed-container attempt 1 did not start"
sg_wait_state unloaded-waiting-driver
assert_journal UNLOADED SWAPGUARD_CONTAINER_ID="$CRIO_CID"

sg_step "systemctl daemon-reload while the daemon waits for the ready file"
reload_watched "$CRIO_CID"
assert_eq CONTAINER_RUNNING "$(crio_ctr_state)" "mofed-container after the reload"
assert_eq unloaded-waiting-driver "$(sg_state)" "daemon state after the reload"
assert_no_journal RESTORED

sg_step "the compile ends: the container creates the ready file"
crio_compiled
sg_wait_state swapped
sg_assert_oot
wait_for_block "$dev" 30
assert_journal SWAPPED SWAPGUARD_MODULE=nvme SWAPGUARD_CONTAINER_ID="$CRIO_CID"

sg_step "systemctl daemon-reload while swapped"
assert_eq "$CRIO_CID" "$(state_container_id)" "the state file's container.id before the reload"
reload_watched "$CRIO_CID"
assert_eq swapped "$(sg_state)" "daemon state after the reload"
assert_eq "$CRIO_CID" "$(state_container_id)" "the state file's container.id after the reload"
assert_eq "$CRIO_CID" "$(state_field build_container)" "the state file's build_container after the reload"
assert_eq 0 "$(gone_lines "$CRIO_CID")" "'Driver container ${CRIO_CID:0:12} is gone' lines after the reload"
sg_assert_oot

sg_step "kubelet stops and removes the pod: the daemon sees the stop, NVIDIA's build stays"
assert_journal ENV_RESTORE_ON_STOP SWAPGUARD_CONTAINER_ID="$CRIO_CID" SWAPGUARD_ENV_VALUE=false
# StopContainer with a grace period (SIGTERM: the entrypoint clears the
# ready file and, RESTORE_DRIVER_ON_POD_TERMINATION=false, leaves the
# modules), then StopPodSandbox and RemovePodSandbox (the container with it).
crictl stop --timeout 60 "$CRIO_CID" >/dev/null 2>&1 || vm_log "crictl stop ${CRIO_CID:0:12} failed"
crio_wait_ctr_state CONTAINER_EXITED 60 || vm_fail "mofed-container did not exit on crictl stop"
assert_contains "$(cat "$CRIO_POD_LOGDIR/mofed-container/1.log" 2>&1)" \
	"RESTORE_DRIVER_ON_POD_TERMINATION is false, keep existing driver loaded" "the container's stop (its log)"
assert_no_file "$SG_READY"
crio_stop_pod
for ((i = 0; i < 100; i++)); do
	[ "$(gone_lines "$CRIO_CID")" != 0 ] && [ -z "$(state_container_id)" ] && break
	vm_nap 0.3
done
assert_eq 1 "$(gone_lines "$CRIO_CID")" "'Driver container ${CRIO_CID:0:12} is gone' lines after the stop"
sg_journal_text | grep "^Driver container ${CRIO_CID:0:12} is gone" | sed 's/^/#   /'
assert_eq "" "$(state_container_id)" "the state file's container.id after the stop (none followed)"
assert_eq swapped "$(sg_state)" "daemon state after the pod's stop (NVIDIA's build stays)"
assert_eq "$CRIO_CID" "$(state_field build_container)" "the state file's build_container after the stop"
assert_no_journal RESTORED
sg_assert_oot
sg_assert_mlx_compat_holders nvme nvme_core
wait_for_block "$dev" 30
assert_ok test -b "$dev"
sg_show_journal
