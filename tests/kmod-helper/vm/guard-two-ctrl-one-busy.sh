# SPDX-License-Identifier: Apache-2.0
# Two plain controllers, only the second namespace mounted: check says which
# one is busy and which is free; unload is refused (both share the nvme
# stack) and nothing is unloaded; the data on both is intact.
# Layout: two-ctrl.
. "$VM_LIB"
. "${0%/*}/guard-lib.sh"

mapfile -t devs < <(nvme_namespaces)
[ "${#devs[@]}" = 2 ] || vm_fatal "expected 2 namespaces, got: ${devs[*]}"
free=${devs[0]} busy=${devs[1]}
vm_log "free: $free, busy: $busy"
seed_data "$free"
mkfs_ext4 "$busy" || vm_fatal "mkfs $busy"
mount_fs "$busy" /mnt/sg-busy || vm_fatal "mount $busy"
write_unsynced /mnt/sg-busy/payload 1024
sync -f /mnt/sg-busy/payload

assert_guard 3 check
assert_contains "$(guard_output)" "${busy#/dev/} is mounted on /mnt/sg-busy (ext4)" "check text"
assert_not_contains "$(guard_output)" "${free#/dev/}" "check text"
assert_guard 3 check --json
per_device='" ".join("%s:%s" % (d["name"], "busy" if d["in_use"] else "free") for d in j["devices"])'
assert_eq "${free#/dev/}:free ${busy#/dev/}:busy" "$(jget "$per_device")" "per-device verdicts"
assert_eq "${busy#/dev/}" "$(jget '" ".join(sorted(set(u["device"] for u in j["usages"])))')" "devices named in usages"
assert_guard 0 status --json
assert_eq "${free#/dev/}:free ${busy#/dev/}:busy" \
	"$(jget '" ".join("%s:%s" % (n["name"], "busy" if n["in_use"] else "free") for n in j["namespaces"])')" \
	"status namespaces"

before=$(stack_state)
assert_guard 3 unload --json
assert_eq refused-in-use "$(jget 'j["outcome"]')" "unload outcome"
assert_eq '[]' "$(jget 'j["removed"]')" "modules removed"
assert_usage mounted device="${busy#/dev/}" where=/mnt/sg-busy
assert_stack_untouched "$before"
assert_file "$free"
assert_file "$busy"

assert_data "$free"
assert_file_data /mnt/sg-busy/payload
assert_remounted_data "$busy" /mnt/sg-busy
