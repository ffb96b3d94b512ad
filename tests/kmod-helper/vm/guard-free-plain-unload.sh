# SPDX-License-Identifier: Apache-2.0
# A free plain namespace: check says free, the plan removes nvme before
# nvme_core, unload leaves no nvme module, check on a node without NVMe
# devices says free (negative control), restore brings the namespace back
# with the data written before the unload.  Layout: plain.
. "$VM_LIB"
. "${0%/*}/guard-lib.sh"

dev=$(plain_namespace) || vm_fatal "no plain nvme namespace"
seed_data "$dev"

assert_guard 0 check
assert_contains "$(guard_output)" "free" "check text"
assert_guard 0 check --json
assert_eq false "$(jget 'j["in_use"]')" "check in_use"
assert_eq "${dev#/dev/}:false" "$(jget '" ".join("%s:%s" % (d["name"], str(d["in_use"]).lower()) for d in j["devices"])')" \
	"check devices"

# The stack's modules and what it shares, from the kernel under test's own
# modules.dep (6.1: nvme, nvme_core and t10_pi & crc helpers; 6.12:
# nvme, nvme_core and nvme_auth, t10_pi built in).
order=$(expected_removal_order)
shared=$(kernel_shared_deps nvme_core | tr '\n' ' ')
shared_loaded=$(loaded_of $shared)
vm_log "kernel $VM_KVER: removal order $order; nvme_core shares: ${shared:-nothing} (loaded: ${shared_loaded:-none})"

assert_guard 0 plan --json
assert_eq "$order" "$(jget 'j["order"]')" "removal order"
assert_eq true "$(jget 'j["can_run"]')" "plan can_run"

assert_guard 0 unload --json
assert_eq removed "$(jget 'j["outcome"]')" "unload outcome"
assert_eq "$order" "$(jget 'j["removed"]')" "modules removed"
assert_eq "" "$(nvme_modules_left)" "nvme host modules left in /proc/modules"
# What the stack shares stays: the host's code, which no build replaces here.
assert_eq "$shared_loaded" "$(loaded_of $shared)" "shared modules kept by the unload"
assert_no_file "$dev"

# Negative control: no NVMe device at all is "nothing in use".
assert_guard 0 check --json
assert_eq 'false 0 0' "$(jget '"%s %d %d" % (str(j["in_use"]).lower(), len(j["devices"]), len(j["usages"]))')" \
	"check without NVMe devices: in_use, devices, usages"
# Unloading what is not loaded is done, not an error.
assert_guard 0 unload --json
assert_eq not-loaded "$(jget 'j["outcome"]')" "second unload outcome"

assert_guard 0 restore --json
assert_eq true "$(jget 'j["ok"]')" "restore ok"
assert_loaded nvme
assert_loaded nvme_core
assert_eq "" "$(module_taint nvme)" "nvme taint (in-tree)"
wait_for_block "$dev" 30 || vm_fatal "$dev did not come back after restore"
assert_eq OK "$(read_dev "$dev")" "read of $dev after restore"
assert_data "$dev"
