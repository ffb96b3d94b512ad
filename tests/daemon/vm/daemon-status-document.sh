#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The status document on a real kernel (tests/vm, systemd mode, --oot): the
# daemon runs as its SHIPPED unit, sandbox included, and must be able to write
# /var/log/nvme-swapguard/status.json there (LogsDirectory=), carrying this
# boot's id and the swap's report. The documents and the daemon's real journal
# (journalctl -o json) are saved to the results share (save/<state>/), which
# tests/fleet/vm-documents.sh hands to the oc plugin's checks.
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
sg_require

DOC=/var/log/nvme-swapguard/status.json
SAVE=/mnt/vm-results/save

# doc_check STATE CHECKS: the document says STATE (waited for: it is written
# right after the state file), belongs to this boot, and passes CHECKS
# (Python statements on d, the document).
doc_check() {
	local want=$1 deadline=$((SECONDS + 30)) out
	while [ $SECONDS -lt $deadline ] && ! grep -q "^  \"state\":\"$want\"" "$DOC" 2>/dev/null; do
		vm_nap 0.2
	done
	if out=$(/usr/bin/python3 -S - "$DOC" "$want" "$2" 2>&1 <<'PY'
import json, os, stat, sys
path, want, checks = sys.argv[1:]
d = json.load(open(path))
boot = open("/proc/sys/kernel/random/boot_id").read().strip()
assert d["state"] == want, d["state"]
assert d["boot_id"] == boot, (d["boot_id"], boot)
assert d["schema"] == 1 and d["daemon"]["version"], d
assert stat.S_IMODE(os.stat(path).st_mode) == 0o644, oct(os.stat(path).st_mode)
# The pin is always on: reported, [] here (nothing on NVMe is in use).
assert d["pins"] == [], d["pins"]
exec(checks)
PY
	); then
		vm_pass "status document: $want, this boot's id, mode 0644; $2"
	else
		vm_fail "status document ($want): $out"
	fi
}

save() {
	mkdir -p "$SAVE/$1"
	cp "$DOC" "$SAVE/$1/status.json"
	cat /proc/sys/kernel/random/boot_id >"$SAVE/$1/boot_id"
	journalctl -u "$SG_UNIT" --no-pager -q -o json >"$SAVE/$1/journal.json"
	vm_log "saved the $1 document and $(wc -l <"$SAVE/$1/journal.json") journal entries"
}

dev=$(first_namespace) || vm_fatal "no namespace"
sg_assert_in_tree
sg_start_dbus || :
rm -rf /var/log/nvme-swapguard /var/log/private/nvme-swapguard   # (the guest's overlay over the host's /)
sg_install_unit
sg_start
sg_wait_state idle
doc_check idle "assert d['live_build'] == 'in-tree', d['live_build']
assert d['gds_hooks']['generation'] == 'none', d['gds_hooks']"
# DynamicUser=: systemd keeps the directory under /var/log/private (0700,
# root's) behind a symlink; kubelet (root) follows it for node-logs --path.
assert_eq private/nvme-swapguard "$(readlink /var/log/nvme-swapguard)" "/var/log/nvme-swapguard (LogsDirectory= of a dynamic user)"
assert_eq 755 "$(stat -L -c %a /var/log/nvme-swapguard)" "mode of /var/log/nvme-swapguard (LogsDirectory=)"

sg_container_new mofed-container nvidia-network-operator
sg_container_start
sg_wait_state unloaded-waiting-driver
doc_check unloaded-waiting-driver "assert d['live_build'] == 'absent', d['live_build']"
sg_container_compiled
sg_ready
sg_wait_state swapped
wait_for_block "$dev" 30
# (the NVIDIA-shaped stand-in: mlx_compat holds the stack, nvme exports the v1 nvfs hooks)
doc_check swapped "m = {x['name']: x for x in d['modules']}
assert d['live_build'] == 'nvidia' and m['nvme']['origin'] == 'nvidia', d['modules']
assert d['gds_hooks']['present'] is True and m['nvme']['gds_hooks'] is True, d['gds_hooks']
assert d['gds_hooks']['generation'] == 'v1', d['gds_hooks']  # was null after a swap to v1
assert d['gds_nvidia_fs'] == 'not-loaded' and d['gds_nvme'] == 'v1', d
assert d['container']['pod'] == '$SG_POD', d['container']
assert d['missing_namespaces'] == [] and len(d['namespaces_before']) >= 1, d"
save swapped

sg_stop
sg_container_stop
# The document outlives the daemon (and, under /var/log, a reboot): the boot
# id is what tells a reader that it may be old.
assert_file "$DOC"
