# SPDX-License-Identifier: Apache-2.0
# A namespace used as swap: check and unload refuse, naming swap and the
# device; nothing unloaded; the swap area stays active and intact (same
# UUID, swapoff succeeds), after which the namespace is free.  Layout: plain.
. "$VM_LIB"
. "${0%/*}/guard-lib.sh"

dev=$(plain_namespace) || vm_fatal "no plain nvme namespace"
name=${dev#/dev/}
mkswap -q "$dev" >/dev/null || vm_fatal "mkswap $dev"
uuid=$(blkid -o value -s UUID "$dev")
swapon "$dev" || vm_fatal "swapon $dev"
assert_contains "$(cat /proc/swaps)" "$dev" "/proc/swaps"

assert_guard 3 check
assert_contains "$(guard_output)" "$name is in use as swap" "check text"
assert_guard 3 check --json
assert_usage swap device="$name" where="$dev"

before=$(stack_state)
assert_guard 3 unload --json
assert_eq refused-in-use "$(jget 'j["outcome"]')" "unload outcome"
assert_eq '[]' "$(jget 'j["removed"]')" "modules removed"
assert_usage swap device="$name"
assert_stack_untouched "$before"
assert_loaded nvme
assert_loaded nvme_core

assert_contains "$(cat /proc/swaps)" "$dev" "/proc/swaps after the refusal"
assert_ok swapoff "$dev"
assert_eq "$uuid" "$(blkid -p -o value -s UUID "$dev")" "swap UUID on $dev (read from the disk)"
assert_guard 0 check
