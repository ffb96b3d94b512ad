# SPDX-License-Identifier: Apache-2.0
# What the pin and the guard's own claims rely on, seen on the real kernel
# (layout mixed: a plain PCIe namespace and a native-multipath head):
#   - an open of a controller's char device /dev/nvmeN takes two references
#     on nvme (its transport: the cdev's owner, and nvme_dev_open) and one on
#     nvme_core (the file operations' owner): `rmmod nvme` answers EAGAIN;
#     that holds for a head's controllers too (usage-pin.h);
#   - an exclusive open of a plain namespace pins nvme and nvme_core, one of
#     a head only nvme_core (claim-hold.h);
#   - with both namespaces free, the guarded unload, which holds exclusive
#     claims on both across the removals, succeeds; restore brings the
#     namespaces back under the same names.
. "$VM_LIB"
. "${0%/*}/guard-lib.sh"

head=$(multipath_head) || vm_fatal "no multipath head"
plain=$(plain_namespace) || vm_fatal "no plain namespace"
plain_ctrl=$(basename "$(readlink -f "/sys/block/${plain#/dev/}/device")")
head_subsys=$(readlink -f "/sys/block/${head#/dev/}/device")
head_ctrls=$(ls "$head_subsys" | grep -E '^nvme[0-9]+$' | tr '\n' ' ')
vm_log "plain $plain on $plain_ctrl; head $head on ${head_subsys##*/}: $head_ctrls"

refs() { echo "nvme=$(module_refcnt nvme) nvme_core=$(module_refcnt nvme_core)"; }
delta() { # BEFORE AFTER MODULE
	local b a
	b=$(sed -n "s/.*\b$3=\([0-9]*\).*/\1/p" <<<"$1"); a=$(sed -n "s/.*\b$3=\([0-9]*\).*/\1/p" <<<"$2")
	echo $((a - b))
}
# hold DEV: a process holding an exclusive open until killed.
hold() { # DEV [excl]
	python3 -S -c '
import os, sys, time
flags = os.O_RDONLY | (os.O_EXCL if sys.argv[2] == "excl" else 0)
fd = os.open(sys.argv[1], flags)
print("held", flush=True)
time.sleep(3600)' "$1" "${2:-plain}" > /tmp/hold.out 2>&1 &
	_held=$!
	for _ in $(seq 50); do grep -q held /tmp/hold.out 2>/dev/null && return 0; vm_nap 0.1; done
	vm_fail "could not hold $1 open: $(cat /tmp/hold.out)"; return 1
}
release() { kill "$_held" 2>/dev/null; wait "$_held" 2>/dev/null; }

base=$(refs)
vm_log "refcnt at rest: $base"

# 1. The plain namespace's controller (held by this shell: no process to start).
exec 7<"/dev/$plain_ctrl"
now=$(refs); vm_log "with /dev/$plain_ctrl open: $now"
assert_eq 2 "$(delta "$base" "$now" nvme)" "opening /dev/$plain_ctrl: references taken on nvme"
assert_eq 1 "$(delta "$base" "$now" nvme_core)" "opening /dev/$plain_ctrl: references taken on nvme_core"
assert_unload_result nvme EAGAIN
exec 7<&-
# 2. Every controller of the head.
fds=
for c in $head_ctrls; do exec {fd}<"/dev/$c"; fds="$fds $fd"; done
now=$(refs); vm_log "with the head's controllers open ($head_ctrls): $now"
assert_eq $((2 * $(wc -w <<<"$head_ctrls"))) "$(delta "$base" "$now" nvme)" "the head's controllers: two nvme references each"
assert_unload_result nvme EAGAIN
for fd in $fds; do exec {fd}<&-; done
assert_eq "$base" "$(refs)" "references back at rest after closing"

# 3. Exclusive opens: what the guard's own claims pin.
hold "$plain" excl && {
	now=$(refs); vm_log "with $plain held O_EXCL: $now"
	assert_eq 1 "$(delta "$base" "$now" nvme)" "O_EXCL on the plain namespace pins nvme"
	assert_eq 1 "$(delta "$base" "$now" nvme_core)" "O_EXCL on the plain namespace pins nvme_core"
	release
}
hold "$head" excl && {
	now=$(refs); vm_log "with $head held O_EXCL: $now"
	assert_eq 0 "$(delta "$base" "$now" nvme)" "O_EXCL on the head does not pin nvme"
	assert_eq 1 "$(delta "$base" "$now" nvme_core)" "O_EXCL on the head pins nvme_core"
	release
}

# 4. The guarded unload with our claims held across it, then back.
before_names=$(nvme_namespaces | sort | tr '\n' ' ')
assert_guard 0 unload
assert_not_loaded nvme
assert_not_loaded nvme_core
assert_guard 0 restore
for _ in $(seq 100); do [ "$(nvme_namespaces | wc -l)" -ge 2 ] && break; vm_nap 0.3; done
vm_log "namespaces before: $before_names; after the restore: $(nvme_namespaces | sort | tr '\n' ' ')"
assert_eq 2 "$(nvme_namespaces | wc -l)" "both namespaces are back"
dmesg | grep -i "Buffer I/O error" && vm_fail "Buffer I/O error in the kernel log" || vm_pass "no Buffer I/O error"
