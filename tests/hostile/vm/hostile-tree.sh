# SPDX-License-Identifier: Apache-2.0
# A container's tree that leads out of it, on the real kernel, where
# /proc/<pid>/root is the kernel's own resolution: a driver container (a
# process in its own root, the out-of-tree build as NVIDIA's) whose tree tries to hand us a file from
# outside it. Path resolution through /proc/<pid>/root follows an absolute
# symlink from the *caller's* root, the host's: /tmp/elsewhere/nvme.ko on the
# host would be loaded. With openat2(RESOLVE_IN_ROOT) it resolves inside the
# tree, where there is no such file. One boot for all of it:
#   1. nvme.ko -> /tmp/elsewhere/nvme.ko (absolute symlink): refused
#   2. nvme.ko -> ../../../../../../tmp/elsewhere/nvme.ko: refused
#   3. modules.dep naming extra/../../../../tmp/elsewhere/nvme.ko: the
#      container has no build of nvme (ENOPKG), nothing from the host for it
#   4. the tree put right: the load works through the one fd per module
#   5. restore: the in-tree stack, the namespace and its data are back.
# Layout: plain, run-vm.sh --oot.
. "$VM_LIB"
. "${0%/*}/../../kmod-helper/vm/guard-lib.sh"

[ -n "${VM_OOT_ROOT:-}" ] || vm_skip "no out-of-tree build (run-vm.sh --oot)"
dev=$(plain_namespace) || vm_fatal "no plain nvme namespace"
seed_data "$dev"

assert_guard 0 unload --json
assert_eq removed "$(jget 'j["outcome"]')" "in-tree stack unloaded"

fake_container_start
# the container goes at the end, then lib.sh's verdict (every check
# counted), which this trap replaces: without it, the script's exit status
# would be fake_container_stop's, 0 whatever failed
stop_container() {
	local rc=$?
	fake_container_stop
	(exit "$rc")
	_vm_summary
}
trap stop_container EXIT
tree=/proc/$VM_CONTAINER_PID/root/lib/modules/$VM_KVER
host=$VM_CONTAINER_ROOT/lib/modules/$VM_KVER/extra/mlnx-nvme/host
mkdir -p /tmp/elsewhere
cp "$host/nvme.ko" /tmp/elsewhere/nvme.ko   # a valid module, outside the container
mv "$host/nvme.ko" "$host/nvme.ko.good"

# --no-restore: a failed load --from puts the in-tree stack back by default;
# here the node must stay as the refusal left it, so that "nothing of the
# stack loaded" shows that nothing from outside the tree was, and so that
# the next attempt starts unloaded as this one did.
refused() { # refused WHAT REASON
	assert_guard 1 load --from "$tree" --no-restore --json
	assert_eq false "$(jget 'j["ok"]')" "$1: refused"
	assert_contains "$(jget 'j["failed_reason"]')" "$2" "$1: reason"
	assert_eq "" "$(nvme_modules_left)" "$1: nothing of the stack loaded"
}

ln -s /tmp/elsewhere/nvme.ko "$host/nvme.ko"
refused "absolute symlink" "nvme.ko"
rm "$host/nvme.ko"

ln -s ../../../../../../tmp/elsewhere/nvme.ko "$host/nvme.ko"
refused "relative symlink up and out" "nvme.ko"
rm "$host/nvme.ko"

cp "$VM_CONTAINER_ROOT/lib/modules/$VM_KVER/modules.dep" /tmp/modules.dep.good 2>/dev/null || : > /tmp/modules.dep.good
printf '%s\n' "extra/../../../../tmp/elsewhere/nvme.ko: extra/mlnx-nvme/host/nvme-core.ko" \
	"extra/mlnx-nvme/host/nvme-core.ko:" > "$VM_CONTAINER_ROOT/lib/modules/$VM_KVER/modules.dep"
mv "$host/nvme.ko.good" "$host/nvme.ko.off"
refused "'..' in modules.dep" "has no build of nvme"
assert_eq 65 "$(jget 'j["failed_errno"]')" "the distinct outcome: ENOPKG (65)"

mv "$host/nvme.ko.off" "$host/nvme.ko"
cp /tmp/modules.dep.good "$VM_CONTAINER_ROOT/lib/modules/$VM_KVER/modules.dep"
assert_guard 0 load --from "$tree" --json
assert_eq true "$(jget 'j["ok"]')" "the load from the container works (one fd per module)"
assert_contains "$(module_taint nvme)" O "live nvme is the container's build"
wait_for_block "$dev" 30 || vm_fatal "$dev did not come back under the container's build"

assert_guard 0 unload --json
assert_guard 0 restore --json
assert_eq true "$(jget 'j["ok"]')" "restore ok"
wait_for_block "$dev" 30 || vm_fatal "$dev did not come back after restore"
assert_eq "" "$(module_taint nvme)" "the in-tree nvme at the end"
assert_data "$dev"
