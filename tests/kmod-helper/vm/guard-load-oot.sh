# SPDX-License-Identifier: Apache-2.0
# The swap on a free namespace: unload the in-tree stack, load the
# out-of-tree build of the same sources (the stand-in for NVIDIA's, laid out
# as a driver container's root: $VM_OOT_ROOT) with load --from; status
# reports nvme and nvme_core as NVIDIA's (taint OE, each holds mlx_compat,
# which load --from took from the container tree too) and the namespace is
# back with its data (t10_pi, missing from the container tree, comes from
# the host's); then unload again and restore: in-tree, data still
# there.  Layout: plain, run-vm.sh --oot.
. "$VM_LIB"
. "${0%/*}/guard-lib.sh"

[ -n "${VM_OOT_ROOT:-}" ] || vm_skip "no out-of-tree build (run-vm.sh --oot)"
tree=$VM_OOT_ROOT/lib/modules/$(uname -r)
dev=$(plain_namespace) || vm_fatal "no plain nvme namespace"
seed_data "$dev"

# "origin/taint" of nvme_core and nvme, from the last status --json.
stack_origins='" ".join("%s=%s/%s" % (m["name"], m["origin"], m["taint"]) for m in sorted(j["modules"], key=lambda m: m["name"]) if m["name"] in ("nvme", "nvme_core"))'

assert_guard 0 status --json
assert_eq "nvme=in-tree/ nvme_core=in-tree/" "$(jget "$stack_origins")" "origins at boot"

assert_guard 0 unload --json
assert_eq removed "$(jget 'j["outcome"]')" "unload outcome"
assert_eq "" "$(nvme_modules_left)" "nvme modules left"
# t10_pi (nvme_core's dependency) exists only in the host tree: unloaded
# too, load --from must find it there.
assert_ok modprobe -r t10_pi
assert_not_loaded t10_pi

assert_guard 0 load --from "$tree" --json
assert_eq true "$(jget 'j["ok"]')" "load ok"
loaded='" ".join("%s=%s" % (m["name"], m["path"]) for m in j["modules"] if m["name"] in ("nvme", "nvme_core"))'
assert_eq "nvme_core=$tree/extra/mlnx-nvme/host/nvme-core.ko nvme=$tree/extra/mlnx-nvme/host/nvme.ko" \
	"$(jget "$loaded")" "modules loaded from the container tree"
assert_eq "/lib/modules/$(uname -r)/kernel/block/t10-pi.ko" \
	"$(jget '[m["path"] for m in j["modules"] if m["name"] == "t10_pi"][0]')" "t10_pi loaded from the host tree"
assert_eq "" "$(module_taint t10_pi)" "t10_pi taint (in-tree)"
assert_contains "$(module_taint nvme)" O "live nvme taint"
assert_contains "$(module_taint nvme_core)" O "live nvme_core taint"
wait_for_block "$dev" 30 || vm_fatal "$dev did not come back under the out-of-tree build"

assert_guard 0 status --json
assert_eq "nvme=nvidia/OE nvme_core=nvidia/OE" "$(jget "$stack_origins")" "origins after load --from"
assert_eq "${dev#/dev/}" "$(jget '" ".join(n["name"] for n in j["namespaces"])')" "namespaces after load --from"
assert_data "$dev"

assert_guard 0 unload --json
assert_eq '["nvme", "nvme_core"]' "$(jget 'j["removed"]')" "out-of-tree modules removed"
assert_eq "" "$(nvme_modules_left)" "nvme modules left"
assert_guard 0 restore --json
assert_eq true "$(jget 'j["ok"]')" "restore ok"
wait_for_block "$dev" 30 || vm_fatal "$dev did not come back after restore"
assert_guard 0 status --json
assert_eq "nvme=in-tree/ nvme_core=in-tree/" "$(jget "$stack_origins")" "origins after restore"
assert_data "$dev"
