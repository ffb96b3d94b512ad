#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End to end on a real kernel (tests/vm, systemd mode, --oot): the daemon runs
# as its shipped unit (sandbox included) under the host's systemd as PID 1,
# with a real system bus; CRI-O is simulated faithfully (lib-swapguard.sh).
# Current image, the first swap with the NVIDIA-shaped stand-in, its
# openibd where the image keeps it (SG_OPENIBD=shipped: check_if_ok_to_stop
# without nvme). UnloadAt=auto, the default, reads it and chooses the ready
# file, and says so in the journal; through the whole compile and the
# container's `openibd restart` (mlx_compat from its tree) the in-tree stack
# stays and the drive stays readable and mountable; at the ready file the
# daemon unloads it, then loads the container's build from /proc/<pid>/root and
# reports it as NVIDIA's (origin nvidia: every module holds mlx_compat) with
# the GDS hooks present (nvme exports nvme_v1_register_nvfs_dma_ops); the
# namespace comes back; the pod's stop clears the ready file. With the
# argument --demo (tests/demo.sh; run-vm.sh hands script arguments to the
# guest) it narrates the steps and prints the daemon's journal and
# `nvme-swapguard-kmod status` at the end.
[ "${1:-}" = --demo ] && DEMO=1
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"

sg_step "The node: Linux $(uname -r) under QEMU, its NVMe namespace on the in-tree driver; starting nvme-swapguard.service (the shipped unit) with a D-Bus system bus"
sg_setup
dev=$SG_DEV
sg_assert_daemon_sees_kallsyms
# Node Feature Discovery's directory (its DaemonSet's, on a node): the
# swap's node labels are published there by nvme-swapguard-labels.service.
nfd_dir=/etc/kubernetes/node-feature-discovery/features.d
mkdir -p "$nfd_dir"

# The drive carries a file system, as a node's local NVMe does.
mkfs_ext4 "$dev" || vm_fatal "mkfs $dev"
mnt=/mnt/local-nvme

# drive_usable WHEN: the namespace answers reads and mounts (then unmounted:
# the swap must find it free), on the in-tree build.
drive_usable() {
	local out
	sg_assert_in_tree
	if out=$(dd if="$dev" of=/dev/null bs=64k count=16 iflag=direct 2>&1); then
		vm_pass "$dev readable $1"
	else
		vm_fail "$dev not readable $1: $out"
	fi
	if mount_fs "$dev" "$mnt" && echo "$1" >"$mnt/probe" && sync && [ "$(cat "$mnt/probe")" = "$1" ]; then
		vm_pass "$dev mountable and writable $1"
	else
		vm_fail "$dev not mountable $1"
	fi
	umount "$mnt" 2>/dev/null
	assert_eq container-seen "$(sg_state)" "daemon state $1"
}

sg_step "CRI-O starts the NVIDIA driver container (mofed-container in nvidia-network-operator); its image keeps openibd's functions in /usr/share/mlnx_ofed/mod_load_funcs"
SG_OPENIBD=shipped sg_container_new mofed-container nvidia-network-operator
assert_file "$SG_CROOT/usr/share/mlnx_ofed/mod_load_funcs"
sg_container_start
assert_contains "$(cat "$SG_UD/config.json")" '"ENABLE_NFSRDMA=true"' "the container's process.env"
vm_log "container ${SG_CID:0:12}: pid $SG_CPID in crio-${SG_CID:0:12}...scope, root $SG_CROOT"

sg_step "UnloadAt=auto reads the container's openibd and chooses its ready file: the drives stay up through the compile"
sg_wait_state container-seen
assert_journal UNLOAD_MOMENT SWAPGUARD_CONTAINER_ID="$SG_CID" SWAPGUARD_UNLOAD_AT=driver-ready SWAPGUARD_MOMENT_RULE=safe-at-ready
assert_contains "$(sg_journal_entries UNLOAD_MOMENT SWAPGUARD_CONTAINER_ID="$SG_CID")" \
	"openibd read from /usr/share/mlnx_ofed/mod_load_funcs" "the moment's reason"
# The compile: the drive is used (read, mounted) several times while it runs.
for round in 1 2 3; do
	drive_usable "during the compile ($round)"
	sleep 1
done
assert_no_journal UNLOADED
assert_not_loaded mlx_compat

sg_step "The compile ends: the container installs its build (NVIDIA's RPM layout) and runs openibd restart over the loaded in-tree nvme (its check_if_ok_to_stop does not stop on it), which loads mlx_compat from its tree"
sg_container_compiled
ctree=/proc/$SG_CPID/root/lib/modules/$VM_KVER
assert_file "$ctree/extra/mlnx-nvme/host/nvme.ko"
assert_file "$ctree/extra/mlnx-ofa_kernel/compat/mlx_compat.ko"
assert_contains "$(modinfo -F depends "$ctree/extra/mlnx-nvme/host/nvme.ko")" mlx_compat "the container's nvme.ko depends"
assert_contains "$(modinfo -F depends "$ctree/extra/mlnx-nvme/host/nvme-core.ko")" mlx_compat "the container's nvme-core.ko depends"
assert_loaded mlx_compat
assert_contains "$(module_taint mlx_compat)" O "mlx_compat taint"
assert_contains "$(cat "$SG_CROOT/tmp/steps")" "openibd restart: done" "the container's openibd restart"
drive_usable "after the container's openibd restart"
assert_no_journal UNLOADED

sg_step "The container creates the ready file $SG_READY: the daemon's swap starts only now"
ready_usec=$(($(date +%s%N) / 1000))
sg_ready
sg_step "The daemon loads the container's build from /proc/$SG_CPID/root/lib/modules/$VM_KVER"
sg_wait_state swapped
sg_assert_oot
assert_no_file "$SG_GUARD"
wait_for_block "$dev" 30
assert_ok test -b "$dev"
assert_journal SWAPPED SWAPGUARD_MODULE=nvme SWAPGUARD_ORIGIN=nvidia SWAPGUARD_GDS_HOOKS=yes
assert_journal SWAPPED SWAPGUARD_MODULE=nvme_core SWAPGUARD_ORIGIN=nvidia
assert_contains "$(sg_journal_entries SWAPPED SWAPGUARD_MODULE=nvme)" "GDS hooks present" "swap report"
sg_assert_mlx_compat_holders nvme nvme_core
# (6.12 also lists each function's __pfx_ padding symbol, CONFIG_CALL_PADDING)
hooks=$(awk '$4 == "[nvme]" && $2 ~ /^[Tt]$/ && $3 ~ /_register_nvfs_dma_ops$/ && $3 !~ /^__pfx_/ { print $3 }' /proc/kallsyms)
assert_eq nvme_v1_register_nvfs_dma_ops "$hooks" "GDS hooks of the live nvme (/proc/kallsyms)"
assert_eq "$(modinfo -F srcversion "$ctree/extra/mlnx-nvme/host/nvme.ko")" "$(cat /sys/module/nvme/srcversion)" \
	"live nvme srcversion (= the container's nvme.ko)"
assert_journal NAMESPACES_BACK
unloaded_usec=$(sg_journal_first_usec UNLOADED SWAPGUARD_CONTAINER_ID="$SG_CID")
if [ -n "$unloaded_usec" ] && [ "$unloaded_usec" -ge "$ready_usec" ]; then
	vm_pass "the in-tree stack went at the ready file ($(((unloaded_usec - ready_usec) / 1000)) ms after it)"
else
	vm_fail "the in-tree stack's unload ('$unloaded_usec' us) is not after the ready file ($ready_usec us)"
fi
assert_contains "$(sg_journal_text)" "Loaded" "journal says the daemon loaded the build"
assert_contains "$(systemctl show -P StatusText "$SG_UNIT")" "swapped" "STATUS="
# The node labels, as nfd-worker reads the file the copier published (root,
# no capabilities, started by the path unit): swapped, the stand-in's GDS
# hooks (v1), not GDS-ready (no nvidia_fs loaded here: nothing asks for them).
labels=
for _ in $(seq 300); do
	labels=$(/usr/bin/python3 -S "$SG_SRC/tests/daemon/nfd-feature-file.py" "$nfd_dir/nvme-swapguard" 2>&1) &&
		[[ $labels == *'"nvme-swapguard.state": "swapped"'* ]] && [[ $labels == *'"nvme-swapguard.gds-hooks": "v1"'* ]] && break
	vm_nap 0.1
done
assert_contains "$labels" '"errors": []' "features.d/nvme-swapguard read as nfd-worker reads it"
assert_contains "$labels" '"nvme-swapguard.state": "swapped"' "node label state"
assert_contains "$labels" '"nvme-swapguard.gds-hooks": "v1"' "node label gds-hooks (the stand-in's nvme exports v1)"
assert_contains "$labels" '"nvme-swapguard.gds-ready": "false"' "node label gds-ready (no nvidia_fs asks for the hooks)"
assert_contains "$labels" '"nvme-swapguard.mode": "enforce"' "node label mode"
assert_eq "root 644" "$(stat -c '%U %a' "$nfd_dir/nvme-swapguard")" "features.d/nvme-swapguard owner and mode"
assert_eq success "$(systemctl show -P Result nvme-swapguard-labels.service)" "nvme-swapguard-labels.service result"
# The unit's ExecStartPre= rebuilt the catalog: journalctl -x explains.
assert_contains "$(journalctl --list-catalog 2>/dev/null | grep "$(sg_message_id SWAPPED)")" \
	"$(sg_message_id SWAPPED)" "journalctl --list-catalog"

gen=${hooks#nvme_}
gen=${gen%%_*}
sg_step "Swapped: nvme is now NVIDIA's build (taint $(module_taint nvme), holds mlx_compat), GDS hooks present ($gen), $dev is back"
if [ "${DEMO:-0}" = 1 ]; then
	sg_step "The daemon's journal (journalctl -u nvme-swapguard)"
	journalctl -u "$SG_UNIT" --no-pager -q -o short-monotonic
	sg_step "Its structured report of the swap (journalctl -u nvme-swapguard MESSAGE_ID=$(sg_message_id SWAPPED) -o json)"
	journalctl -u "$SG_UNIT" MESSAGE_ID="$(sg_message_id SWAPPED)" --no-pager -q -o json | /usr/bin/python3 -S -c '
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
	sg_step "The GDS hooks in /proc/kallsyms, and mlx_compat's holders"
	awk '$2 ~ /^[Tt]$/ && $3 ~ /_nvfs_dma_ops$/ && $4 ~ /^\[/ { print "    " $3 " " $4 }' /proc/kallsyms
	echo "    /sys/module/mlx_compat/holders: $(ls /sys/module/mlx_compat/holders | tr '\n' ' ')"
	sg_step "The driver container's log ($SG_CLOG)"
	sed 's/^/    /' "$SG_CLOG"
else
	sg_show_journal
fi

sg_stop
sg_step "The pod is deleted: its entrypoint clears the ready file"
sg_container_stop
assert_no_file "$SG_READY"
