# SPDX-License-Identifier: Apache-2.0
# The swap on a free namespace: unload the in-tree stack, load the
# out-of-tree build of the same sources (the stand-in for NVIDIA's, laid out
# as a driver container's root: $VM_OOT_ROOT) with load --from; status
# reports nvme and nvme_core as NVIDIA's (taint OE, each holds mlx_compat,
# which load --from took from the container tree too) and the namespace is
# back with its data; then unload again and restore: in-tree, data still
# there.  Layout: plain, run-vm.sh --oot (either --oot-shape).
#
# What nvme_core needs outside drivers/nvme/host is read from the kernel
# under test (6.1: t10_pi and the crc helpers, missing from the container
# tree, come from the host's; 6.12: nvme_auth, t10_pi built in): after the
# load each is the container's build when its tree ships one (shape own),
# the host's otherwise (shape link); after the restore, the host's.
. "$VM_LIB"
. "${0%/*}/guard-lib.sh"

[ -n "${VM_OOT_ROOT:-}" ] || vm_skip "no out-of-tree build (run-vm.sh --oot)"
tree=$VM_OOT_ROOT/lib/modules/$(uname -r)
dev=$(plain_namespace) || vm_fatal "no plain nvme namespace"
seed_data "$dev"

# "origin/taint" of nvme_core and nvme, from the last status --json.
stack_origins='" ".join("%s=%s/%s" % (m["name"], m["origin"], m["taint"]) for m in sorted(j["modules"], key=lambda m: m["name"]) if m["name"] in ("nvme", "nvme_core"))'

shared=$(kernel_shared_deps nvme_core | tr '\n' ' ')
vm_log "kernel $VM_KVER, stand-in shape ${VM_OOT_SHAPE:-?}: nvme_core shares ${shared:-nothing}"
# assert_shared_builds WHEN: each shared module nvme_core needs is loaded,
# the container's build (taint O) exactly when the tree ships one.
assert_shared_builds() {
	local m
	for m in $shared; do
		assert_loaded "$m"
		if [ "$1" = "after load --from" ] && tree_ships "$VM_OOT_ROOT" "$m"; then
			assert_contains "$(module_taint "$m")" O "$m taint $1 (the container's build)"
		else
			assert_eq "" "$(module_taint "$m")" "$m taint $1 (the host's build)"
		fi
	done
}

assert_guard 0 status --json
assert_eq "nvme=in-tree/ nvme_core=in-tree/" "$(jget "$stack_origins")" "origins at boot"

assert_guard 0 unload --json
assert_eq removed "$(jget 'j["outcome"]')" "unload outcome"
assert_eq "" "$(nvme_modules_left)" "nvme modules left"
# t10_pi (nvme_core's dependency on 6.1) exists only in the host tree:
# unloaded too, load --from must find it there.  Built in on 6.12.
if kernel_is_module t10_pi; then
	assert_ok modprobe -r t10_pi
	assert_not_loaded t10_pi
else
	vm_log "t10_pi is not a module on $VM_KVER (built in): nothing to take out"
fi

assert_guard 0 load --from "$tree" --json
assert_eq true "$(jget 'j["ok"]')" "load ok"
loaded='" ".join("%s=%s" % (m["name"], m["path"]) for m in j["modules"] if m["name"] in ("nvme", "nvme_core"))'
assert_eq "nvme_core=$tree/extra/mlnx-nvme/host/nvme-core.ko nvme=$tree/extra/mlnx-nvme/host/nvme.ko" \
	"$(jget "$loaded")" "modules loaded from the container tree"
if kernel_is_module t10_pi; then
	assert_eq "$(kernel_module_file t10_pi)" \
		"$(jget '[m["path"] for m in j["modules"] if m["name"] == "t10_pi"][0]')" "t10_pi loaded from the host tree"
fi
assert_shared_builds "after load --from"
assert_contains "$(module_taint nvme)" O "live nvme taint"
assert_contains "$(module_taint nvme_core)" O "live nvme_core taint"
wait_for_block "$dev" 30 || vm_fatal "$dev did not come back under the out-of-tree build"

assert_guard 0 status --json
assert_eq "nvme=nvidia/OE nvme_core=nvidia/OE" "$(jget "$stack_origins")" "origins after load --from"
assert_eq "${dev#/dev/}" "$(jget '" ".join(n["name"] for n in j["namespaces"])')" "namespaces after load --from"
assert_data "$dev"

# What the unload takes out: the drivers/nvme/host modules (the kernel's
# modules.dep gives their order) and then the shared modules of
# the build that went in with them (its own nvme_auth with --oot-shape own:
# taint O, holding mlx_compat, read from the live kernel; after the modules
# that hold them, the last in name order first, as the plan breaks ties).
order=$(expected_removal_order)
build_shared=
for m in $(for h in $(loaded_nvme_host_modules); do kernel_shared_deps "$h"; done | sort -ru); do
	module_loaded "$m" || continue
	case $(module_taint "$m") in *O*) ;; *) continue ;; esac
	[ -e "/sys/module/mlx_compat/holders/$m" ] && build_shared+=" $m"
done
order=$(/usr/bin/python3 -S -c 'import json, sys; print(json.dumps(json.loads(sys.argv[1]) + sys.argv[2].split()))' "$order" "$build_shared")
if [ "$VM_OOT_SHAPE" = own ] && kernel_is_module nvme_auth; then
	assert_contains "$build_shared" nvme_auth "the build's own nvme_auth is loaded, holding mlx_compat"
fi
assert_guard 0 unload --json
assert_eq "$order" "$(jget 'j["removed"]')" "out-of-tree modules removed"
assert_eq "" "$(nvme_modules_left)" "nvme modules left"
for m in $build_shared; do assert_not_loaded "$m"; done
assert_guard 0 restore --json
assert_eq true "$(jget 'j["ok"]')" "restore ok"
wait_for_block "$dev" 30 || vm_fatal "$dev did not come back after restore"
assert_guard 0 status --json
assert_eq "nvme=in-tree/ nvme_core=in-tree/" "$(jget "$stack_origins")" "origins after restore"
assert_shared_builds "after restore"
assert_data "$dev"
