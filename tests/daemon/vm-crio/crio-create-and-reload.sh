#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Real CRI-O 1.27.8 (lib-crio.sh), the shipped unit; one boot for the
# scenarios where what the node shows is not what it seems (issue 8 item 7):
#  1. "a pid" means "created": runc writes the pidfile at CreateContainer and
#     its process waits in `runc init` until StartContainer. A created
#     container has not started: the daemon must not unload for it. From
#     inside the shipped unit runc 1.1.5's init reads: name "runc:[2:INIT]",
#     exe "/" (readlink succeeds: a detached bind mount of runc, try_bindfd),
#     /run/runc/<id>/exec.fifo present (daemon/container-started.h).
#  2. a start that fails after create: the entrypoint cannot be executed
#     (ENOEXEC at start; create succeeded). The daemon must never have
#     unloaded the in-tree stack for a container that never ran.
#  3. kubelet's next attempt (new container id) starts; while the daemon
#     waits for its ready file, `systemctl daemon-reload` (systemd sends
#     UnitRemoved then UnitNew for every crio-*.scope, systemd#376): that is
#     not an exit, the daemon goes on waiting and swaps at the ready file;
#  4. a daemon-reload while swapped: the state file still names the
#     container.
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-crio.sh"
crio_require

dev=$(first_namespace) || vm_fatal "no namespace"
sg_assert_in_tree
sg_start_dbus || vm_fatal "no system bus: CRI-O's systemd cgroup manager needs one"
sg_install_unit
sg_start
sg_wait_state idle
crio_setup

sg_step "kubelet creates mofed-container; its entrypoint cannot be executed"
crio_pod_new
crio_ctr_create mofed-container 0 /bin/broken-entrypoint
bad=$CRIO_CID
assert_file "$CRIO_RUNROOT/overlay-containers/$bad/userdata/pidfile"
crio_footprint "$bad"
sleep 3
assert_eq idle "$(sg_state)" "daemon state while the container is only created"
# runc 1.1.5's init, as the daemon sees it from its sandbox: named
# "runc:[2:INIT]", exe "/" (a detached bind mount), exec.fifo present
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
systemctl daemon-reload
sleep 3
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
systemctl daemon-reload
sleep 3
assert_eq swapped "$(sg_state)" "daemon state after the reload"
assert_contains "$(cat "$SG_STATE_FILE")" "$CRIO_CID" "the state file names the container"
sg_assert_oot
sg_show_journal
