#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Real CRI-O 1.27.8 on the VM's node (lib-crio.sh), the daemon as its shipped
# unit, one boot for the scenarios that share it:
#  1. the first swap: kubelet starts the driver DaemonSet pod (init container,
#     mofed-container, openshift-driver-toolkit-ctr sidecar); the daemon
#     unloads the in-tree stack while mofed-container compiles and loads its
#     build when the container itself creates the ready file;
#  2. CRI-O restarted while the daemon waits for the ready file: the
#     containers keep running (conmon lives in the pod's slice), nothing
#     changes for the daemon, the swap completes afterwards;
#  3. a node reboot's leftovers (crio_reboot): the previous boot's containers
#     are still in CRI-O's storage when the daemon starts, CRI-O's
#     internal_wipe removes them at its start; the daemon stays idle with
#     the in-tree stack until kubelet starts the pod again, then swaps.
# With --demo (tests/demo.sh) it narrates, stops after the first swap and
# shows the daemon's journal, its state file and `nvme-swapguard-kmod status`.
[ "${1:-}" = --demo ] && DEMO=1
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-crio.sh"
crio_case_begin

sg_step "kubelet starts the driver pod through CRI-O: init container, mofed-container, openshift-driver-toolkit-ctr"
crio_driver_pod
crio_footprint "$CRIO_CID"
sg_wait_state unloaded-waiting-driver
assert_not_loaded nvme
assert_journal UNLOADED SWAPGUARD_CONTAINER_ID="$CRIO_CID"
# The start seen when runc removes its exec fifo, not by the
# 2 s looks: the daemon names the fifo it watches and never falls back.
journal=$(sg_journal_text)
assert_contains "$journal" "Container ${CRIO_CID:0:12}: its start is watched on /run/runc/$CRIO_CID/exec.fifo" \
	"daemon journal"
assert_not_contains "$journal" "looked for every 2 s" "daemon journal"
# for the record (not asserted: a time): the entrypoint's first line in its
# CRI-O log (conmon stamps each line as it reads it, a few ms after the
# exec) against the daemon's journal entries for the container (their
# _SOURCE_REALTIME_TIMESTAMP: when the daemon logged them), wall clock.
journalctl -u "$SG_UNIT" --no-pager -q -o json | grep -F "${CRIO_CID:0:12}" >/tmp/sg-start-entries.json
python3 -S - "$CRIO_POD_LOGDIR/mofed-container/0.log" /tmp/sg-start-entries.json <<'PY' |
import datetime, json, re, sys
ts = open(sys.argv[1]).readline().split(" ", 1)[0]
m = re.fullmatch(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)", ts)
base = datetime.datetime.fromisoformat(m[1] + ("+00:00" if m[3] == "Z" else m[3]))
exec_s = base.timestamp() + float("0." + (m[2] or "0"))
print(f"entrypoint's first log line {ts}")
for line in open(sys.argv[2]):
    e = json.loads(line)
    t = int(e.get("_SOURCE_REALTIME_TIMESTAMP") or e["__REALTIME_TIMESTAMP"]) / 1e6
    if abs(t - exec_s) < 30:
        print(f"{t - exec_s:+8.3f} s {str(e.get('MESSAGE'))[:110]}")
PY
	sed 's/^/# start: /'

sg_step "CRI-O restarts while the daemon waits for the ready file"
pid_before=$CRIO_CPID
systemctl restart crio.service || vm_fatal "systemctl restart crio.service"
assert_eq CONTAINER_RUNNING "$(crio_ctr_state)" "mofed-container after CRI-O's restart"
assert_eq "$pid_before" "$(crio_ctr_pid)" "mofed-container's pid after CRI-O's restart"
sleep 2
assert_eq unloaded-waiting-driver "$(sg_state)" "daemon state after CRI-O's restart"
assert_no_journal RESTORED

sg_step "mofed-container finishes its compile and creates the ready file"
crio_compiled
sg_wait_state swapped
sg_assert_oot
wait_for_block "$dev" 30
assert_ok test -b "$dev"
assert_journal SWAPPED SWAPGUARD_MODULE=nvme SWAPGUARD_ORIGIN=nvidia SWAPGUARD_GDS_HOOKS=yes SWAPGUARD_CONTAINER_ID="$CRIO_CID"
assert_loaded mlx_compat
# the live nvme is the container's (its root through /proc/<pid>/root)
assert_eq "$(modinfo -F srcversion "/proc/$CRIO_CPID/root/lib/modules/$VM_KVER/extra/mlnx-nvme/host/nvme.ko")" \
	"$(cat /sys/module/nvme/srcversion)" "live nvme srcversion (= the container's nvme.ko)"
assert_journal NAMESPACES_BACK
if [ "${DEMO:-0}" = 1 ]; then
	sg_step "The pod as CRI-O shows it (crictl pods; crictl ps -a)"
	crictl pods
	crictl ps -a
	sg_step "The daemon's journal (journalctl -u nvme-swapguard)"
	journalctl -u "$SG_UNIT" --no-pager -q -o short-monotonic
	sg_step "The daemon's state file $SG_STATE_FILE"
	cat "$SG_STATE_FILE"
	echo
	sg_step "nvme-swapguard-kmod status"
	"$VM_KMOD_HELPER" status
	exit
fi

sg_step "the node reboots: the previous boot's containers are still in CRI-O's storage"
old=$CRIO_CID
crio_reboot
wait_for_block "$dev" 30
sg_assert_in_tree
assert_file "$CRIO_GRAPHROOT/overlay-containers/$old/userdata/config.json"
assert_no_file "$CRIO_RUNROOT/overlay-containers/$old"
sg_start
sg_wait_state idle
sleep 2
assert_eq idle "$(sg_state)" "daemon state with the previous boot's leftovers"
sg_assert_in_tree
systemctl start crio.service || vm_fatal "systemctl start crio.service after the reboot"
assert_no_file "$CRIO_GRAPHROOT/overlay-containers/$old"
assert_eq "" "$(crictl ps -aq)" "containers after CRI-O's internal_wipe"
sleep 2
assert_eq idle "$(sg_state)" "daemon state after CRI-O's start"
sg_assert_in_tree

sg_step "kubelet starts the same pod again (sandbox attempt 1): a new swap"
CRIO_POD_AGAIN=1 crio_driver_pod "$CRIO_POD_NAME"
assert_ne "$old" "$CRIO_CID" "mofed-container's id after the reboot"
sg_wait_state unloaded-waiting-driver
crio_compiled
sg_wait_state swapped
sg_assert_oot
wait_for_block "$dev" 30
assert_journal SWAPPED SWAPGUARD_MODULE=nvme SWAPGUARD_CONTAINER_ID="$CRIO_CID"
sg_show_journal
