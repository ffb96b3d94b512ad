#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The driver container's life after the first swap (issue 8), on one boot of
# a real kernel (tests/vm, systemd mode, --oot, the shipped unit, the
# NVIDIA-shaped stand-in and its fake driver container, lib-swapguard.sh):
#  1. the first swap, GDS hooks and their generation reported;
#  2. a pod restart with the same image: the new container is a new swap:
#     the daemon takes the earlier build out before the new container's
#     `openibd restart` trips on it (which then succeeds), and
#     `systemctl daemon-reload` while it waits for the ready file changes
#     nothing (UnitRemoved of its scope is not an exit);
#  3. a driver upgrade (the v2 stand-in when the harness built it) whose
#     predecessor was killed and left its ready file: the stale file is
#     ignored and reported; the end state is swapped to the new container's
#     build, namespaces back.
# One boot: 398.8 s VM wall (49 checks), run on 2026-12-02 with the stand-in.
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
declare -F sg_container_compiled >/dev/null ||
	vm_skip "needs the NVIDIA-shaped stand-in and its fake driver container (lib-swapguard.sh from the standin: commit)"

state_field() { /usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]) or "")' "$SG_STATE_FILE" "$1"; }

sg_setup
dev=$SG_DEV

# --- 1. the first swap ------------------------------------------------------
sg_step "1. The first swap"
sg_container_new mofed-container nvidia-network-operator
sg_container_start
a_cid=$SG_CID a_cpid=$SG_CPID
sg_wait_state unloaded-waiting-driver
sg_container_compiled
sg_ready
sg_wait_state swapped
sg_assert_oot
assert_journal SWAPPED SWAPGUARD_MODULE=nvme SWAPGUARD_GDS_HOOKS=yes
assert_journal GDS_GENERATION SWAPGUARD_GDS_EXPORTED=v1
assert_eq "$a_cid" "$(state_field build_container)" "the state file names the build's container"
assert_contains "$("$VM_KMOD_HELPER" status)" "GDS hooks v1" "nvme-swapguard-kmod status"

# --- 2. a pod restart with the same image ------------------------------------
sg_step "2. The pod restarts (same image): the old container stops, a new one is created"
sg_container_stop
sg_container_remove
sleep 1
assert_eq swapped "$(sg_state)" "state after the old pod's stop (its build stays loaded)"
sg_container_new mofed-container nvidia-network-operator
sg_container_start
b_cid=$SG_CID
sg_wait_state unloaded-waiting-driver
assert_journal EARLIER_BUILD SWAPGUARD_CONTAINER_ID="$b_cid"
assert_not_loaded nvme
assert_not_loaded nvme_core

sg_step "2b. systemctl daemon-reload while the daemon waits for the ready file"
gone_before=$(sg_journal_text | grep -c "is gone" || :)
systemctl daemon-reload
sleep 3
assert_eq unloaded-waiting-driver "$(sg_state)" "state after daemon-reload"
assert_eq "$gone_before" "$(sg_journal_text | grep -c "is gone" || :)" "'is gone' journal lines after daemon-reload"
assert_file "$SG_STORE/$b_cid/userdata/config.json"

sg_step "2c. The new container's openibd restart succeeds (nothing of the earlier build left to trip on)"
sg_container_compiled
assert_not_contains "$(cat "$SG_CLOG")" "FAILED" "the new container's log"
assert_loaded mlx_compat
sg_ready
sg_wait_state swapped
sg_assert_oot
sg_assert_mlx_compat_holders nvme nvme_core
assert_eq "$b_cid" "$(state_field build_container)" "the state file names the new container's build"
wait_for_block "$dev" 30
assert_ok test -b "$dev"
assert_contains "$(sg_journal_entries NAMESPACES_BACK | tail -n1)" "are back" "namespaces after the second swap"

# --- 3. a driver upgrade over a killed predecessor's ready file ----------------
sg_step "3. A driver upgrade: the old container is killed (its ready file stays), the new image starts late"
kill -KILL "$SG_CPID"; wait "$SG_CPID" 2>/dev/null; SG_CPID=
sg_container_remove
assert_file "$SG_READY"
[ -n "${VM_OOT_ROOT_V2:-}" ] && SG_GDS=v2
sg_container_new mofed-container nvidia-network-operator
# The entrypoint starts a few seconds after the process (image pull, init):
# meanwhile the earlier instance's ready file is still there.
/usr/bin/python3 - "$SG_UD/config.json" <<'PY'
import json, sys
p = sys.argv[1]
c = json.load(open(p))
c["process"]["args"] = ["/bin/sh", "-c", "sleep 6; exec /bin/sh /root/entrypoint.sh sources"]
json.dump(c, open(p + ".tmp", "w"))
PY
mv "$SG_UD/config.json.tmp" "$SG_UD/config.json"
sg_container_start
c_cid=$SG_CID
sg_wait_state unloaded-waiting-driver
assert_journal READY_STALE SWAPGUARD_CONTAINER_ID="$c_cid"
assert_not_loaded nvme
assert_no_journal FAILED SWAPGUARD_CONTAINER_ID="$c_cid"
sg_container_compiled
sg_ready
sg_wait_state swapped
sg_assert_oot
assert_eq "$c_cid" "$(state_field build_container)" "the state file names the upgraded container's build"
if [ "${SG_GDS:-v1}" = v2 ]; then
	assert_journal GDS_GENERATION SWAPGUARD_GDS_EXPORTED=v2
fi
wait_for_block "$dev" 30
assert_ok test -b "$dev"
sg_show_journal
sg_stop
sg_container_stop
