#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The driver container's life after the first swap, on one boot of
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
#     build, namespaces back;
#  4. GDS generations on the real kernel: the GPU Operator's nvidia-fs-ctr
#     (a container whose root holds the nvidia-fs stand-in of
#     build-oot-nvme.sh, standin/nvidia-fs/) loads an nvidia_fs that asks for
#     the other generation than the loaded build exports: a warning with the
#     remedy in the journal, and the generation of each in
#     `nvme-swapguard-kmod status` (and --json), the state file and the status
#     document; then one that asks for the same: no warning.
# Step 1 also checks the load message: which modules came from the
# container's tree, which from the host's, which were already loaded.
# One boot: 416.8 s (81 checks), run on 2026-12-02 with the stand-in (398.8 s
# and 49 checks before step 4 and the load-message checks).
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
declare -F sg_container_compiled >/dev/null ||
	vm_skip "needs the NVIDIA-shaped stand-in and its fake driver container (lib-swapguard.sh from the standin: commit)"

state_field() { /usr/bin/python3 -S -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2]) or "")' "$SG_STATE_FILE" "$1"; }

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
# The load message: mlx_compat was loaded by the container's openibd, not by
# the daemon. What the container's nvme_core needs outside the stack is read
# from that build and the kernel under test, never from one kernel's graph
# (6.1: t10_pi, from the host's tree or still loaded; 6.12: nvme_auth, the
# container's own in the stand-in's shape `own`, else the host's still
# loaded; t10_pi is built into 6.12): from the container's tree when the
# tree ships it, else named apart.
loaded_line=$(sg_journal_text | grep "^Loaded .* from the driver container's tree" | tail -n1)
ours=${loaded_line%% from the driver container\'s tree*}
assert_contains "$loaded_line" "from the driver container's tree /proc/$a_cpid/root/" "the load message: the tree"
assert_contains "$ours" "nvme_core" "the load message: nvme_core from the container's tree"
assert_not_contains "$ours" "mlx_compat" "the load message: mlx_compat is not the daemon's load"
assert_contains "$loaded_line" "already loaded, left as they were: mlx_compat" "the load message (mlx_compat by openibd)"
core_ko=$(OOT_TREE_ROOT=$(sg_build_root) oot_ko nvme_core) || vm_fatal "no nvme_core in the stand-in's tree"
members=" $(kernel_nvme_host_modules | tr '\n' ' ') mlx_compat "
for dep in $(modinfo -F depends "$core_ko" | tr ',-' ' _'); do
	case $members in *" $dep "*) continue ;; esac
	if tree_ships "$(sg_build_root)" "$dep"; then
		assert_contains "$ours" "$dep" "the load message: $dep from the container's tree (the build ships it)"
	else
		assert_not_contains "$ours" "$dep" "the load message: $dep is not from the container's tree"
		assert_contains "$loaded_line" "$dep" "the load message ($dep, the host's, named apart)"
	fi
done

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
/usr/bin/python3 -S - "$SG_UD/config.json" <<'PY'
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

# --- 4. nvidia-fs asking for the other hook generation -------------------------
exported=${SG_GDS:-v1}
other=v2; [ "$exported" = v2 ] && other=v1
nvfs_src=${VM_OOT_ROOT%/*}/nvidia-fs
[ -f "$nvfs_src/$other/nvidia-fs.ko" ] || vm_fatal "no nvidia-fs stand-in in $nvfs_src (build-oot-nvme.sh)"

# nvfs_ctr_start GEN: the GPU Operator's nvidia-fs-ctr, its root holding the
# nvidia-fs build that asks for GEN (depmod run inside, as the container
# does); the mofed container's SG_* variables are kept.
nvfs_ctr_start() {
	local save=("$SG_CID" "$SG_CROOT" "$SG_UD" "$SG_CLOG" "$SG_CPID") tree
	sg_container_new nvidia-fs-ctr gpu-operator nvidia-driver-daemonset-6.1.0-57-x7k2p
	tree=$SG_CROOT/lib/modules/$VM_KVER
	mkdir -p "$tree/extra"
	cp "$nvfs_src/$1/nvidia-fs.ko" "$tree/extra/nvidia-fs.ko"
	depmod -b "$SG_CROOT" "$VM_KVER"
	sg_container_start
	NVFS_CID=$SG_CID NVFS_CPID=$SG_CPID NVFS_KO=$tree/extra/nvidia-fs.ko
	SG_CID=${save[0]} SG_CROOT=${save[1]} SG_UD=${save[2]} SG_CLOG=${save[3]} SG_CPID=${save[4]}
}
nvfs_ctr_stop() {
	kill -KILL "$NVFS_CPID" 2>/dev/null; wait "$NVFS_CPID" 2>/dev/null
	rm -rf "${SG_STORE:?}/$NVFS_CID"
}
# wait_gds FIELD=VALUE...: a GDS_GENERATION entry with those fields.
wait_gds() {
	local deadline=$((SECONDS + 30))
	while [ $SECONDS -lt $deadline ]; do
		sg_journal_entries GDS_GENERATION "$@" >/dev/null && break
		vm_nap 0.3
	done
	assert_journal GDS_GENERATION "$@"
}
doc_field() { /usr/bin/python3 -S -c 'import json, sys
o = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    o = (o or {}).get(k)
print("null" if o is None else o)' "$1" "$2"; }

sg_step "4. nvidia-fs-ctr loads an nvidia_fs that asks for GDS hooks $other (nvme exports $exported)"
nvfs_ctr_start "$other"
insmod "$NVFS_KO"
assert_loaded nvidia_fs
wait_gds SWAPGUARD_GDS_MATCH=different SWAPGUARD_GDS_WANTED="$other" SWAPGUARD_GDS_EXPORTED="$exported" PRIORITY=4
warn=$(sg_journal_entries GDS_GENERATION SWAPGUARD_GDS_MATCH=different)
assert_contains "$warn" "compatibility mode" "the warning says what it means"
assert_contains "$warn" "Remedy: use an nvidia-fs built for the same DOCA release" "the warning's remedy"
dmesg | grep "nvidia-fs stand-in" | tail -n1 | sed 's/^/#   kernel: /'
assert_contains "$(dmesg | grep 'nvidia-fs stand-in' | tail -n1)" "not found" "the stand-in found no nvme_${other}_* hooks"
sleep 1 # the state file and the document are written after the entry
assert_eq "$exported" "$(state_field gds_nvme)" "state file: gds_nvme"
assert_eq "$other" "$(state_field gds_nvidia_fs)" "state file: gds_nvidia_fs"
assert_eq different "$(state_field gds_match)" "state file: gds_match"
st=$("$VM_KMOD_HELPER" status)
assert_contains "$st" "GDS hooks $exported" "kmod status: what nvme exports"
assert_contains "$st" "nvidia_fs asks for GDS hooks $other but nvme exports $exported" "kmod status: what nvidia_fs asks for"
js=$("$VM_KMOD_HELPER" status --json)
assert_eq "$other" "$(/usr/bin/python3 -S -c 'import json,sys; print(json.load(sys.stdin)["daemon"]["gds_nvidia_fs"])' <<<"$js")" "kmod status --json: daemon.gds_nvidia_fs"
assert_eq different "$(/usr/bin/python3 -S -c 'import json,sys; print(json.load(sys.stdin)["daemon"]["gds_match"])' <<<"$js")" "kmod status --json: daemon.gds_match"
doc=/var/log/nvme-swapguard/status.json
assert_eq "$exported" "$(doc_field "$doc" gds_hooks.generation)" "status document: gds_hooks.generation"
assert_eq "$other" "$(doc_field "$doc" gds_nvidia_fs)" "status document: gds_nvidia_fs"
assert_eq different "$(doc_field "$doc" gds_match)" "status document: gds_match"

sg_step "4b. nvidia_fs replaced by one that asks for $exported: they match, no warning"
rmmod nvidia_fs
wait_gds SWAPGUARD_GDS_WANTED=not-loaded
nvfs_ctr_stop
warnings=$(sg_journal_entries GDS_GENERATION SWAPGUARD_GDS_MATCH=different | wc -l)
nvfs_ctr_start "$exported"
refs=$(cat /sys/module/nvme/refcnt)
insmod "$NVFS_KO"
wait_gds SWAPGUARD_GDS_MATCH=same SWAPGUARD_GDS_WANTED="$exported" PRIORITY=6
assert_contains "$(dmesg | grep 'nvidia-fs stand-in' | tail -n1)" "registration worked" "the stand-in registered with nvme_${exported}_* hooks"
assert_eq "$warnings" "$(sg_journal_entries GDS_GENERATION SWAPGUARD_GDS_MATCH=different | wc -l)" "GDS warnings after the matching nvidia_fs"
sleep 1
assert_eq same "$(state_field gds_match)" "state file: gds_match"
assert_eq same "$(doc_field "$doc" gds_match)" "status document: gds_match"
assert_eq "$refs" "$(cat /sys/module/nvme/refcnt)" "nvme refcnt (nvidia-fs keeps no reference without a GDS process)"
rmmod nvidia_fs
nvfs_ctr_stop
sg_show_journal
sg_stop
sg_container_stop
