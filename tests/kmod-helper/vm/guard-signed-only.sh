# SPDX-License-Identifier: Apache-2.0
# A kernel that loads only signed modules (booted with module.sig_enforce=1,
# as Secure Boot's lockdown does on RHCOS): the stand-in for
# NVIDIA's build is unsigned, so `load --from` its tree is refused by the
# kernel ("Key was rejected by service"). The CLI says so, with the
# remedies, puts the in-tree stack back by itself (Debian's modules are
# signed by its key) and the namespace comes back with its data. With
# --no-restore it leaves the node as the failed load left it and says how
# to restore. Layout: plain, run-vm.sh --oot --append module.sig_enforce=1.
. "$VM_LIB"
. "${0%/*}/guard-lib.sh"

[ -n "${VM_OOT_ROOT:-}" ] || vm_skip "no out-of-tree build (run-vm.sh --oot)"
[ "$(cat /sys/module/module/parameters/sig_enforce 2>/dev/null)" = Y ] ||
	vm_skip "module.sig_enforce is not on (run-vm.sh --append module.sig_enforce=1)"
tree=$VM_OOT_ROOT/lib/modules/$(uname -r)
dev=$(plain_namespace) || vm_fatal "no plain nvme namespace"
seed_data "$dev"

assert_guard 0 unload --json
assert_eq removed "$(jget 'j["outcome"]')" "unload outcome"
assert_eq "" "$(nvme_modules_left)" "nvme modules left"
assert_no_file "$dev"

# 1. The load, refused: restored by the same command.
assert_guard 1 load --from "$tree"
out=$(guard_output)
assert_contains "$out" "Key was rejected by service" "the kernel's answer"
assert_contains "$out" "this kernel loads only modules signed by a key it trusts (module.sig_enforce=Y)" "why"
assert_contains "$out" "mokutil --import" "the remedy: enroll the signing key"
assert_contains "$out" "or leave this node on the in-tree stack" "the other remedy"
assert_contains "$out" "restored: the in-tree NVMe stack is loaded again, because the load from $tree failed" "the restore"
assert_loaded nvme
assert_loaded nvme_core
assert_eq "" "$(module_taint nvme)" "nvme taint (in-tree)"
assert_eq "" "$(module_taint nvme_core)" "nvme_core taint (in-tree)"
wait_for_block "$dev" 30 || vm_fatal "$dev did not come back after the restore"
assert_data "$dev"

# 2. --no-restore: left without the stack, told how to restore; then restore.
assert_guard 0 unload
assert_guard 1 load --from "$tree" --no-restore --json
assert_eq false "$(jget 'j["ok"]')" "load ok"
assert_eq skipped "$(jget 'j["restore"]["outcome"]')" "restore outcome with --no-restore"
assert_eq EKEYREJECTED "$(jget '__import__("errno").errorcode[j["failed_errno"]]')" "the load's errno"
vm_log "the load's failure: $(jget '{k: v for k, v in j.items() if k.startswith("fail")}')"
assert_eq "" "$(nvme_modules_left)" "nvme modules left with --no-restore"
assert_guard 0 restore
wait_for_block "$dev" 30 || vm_fatal "$dev did not come back after restore"
assert_data "$dev"
