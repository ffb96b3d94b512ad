# SPDX-License-Identifier: Apache-2.0
# Self-test of the harness in script mode, layout mixed (one plain
# controller + a two-controller multipath subsystem): the guest looks like a
# node where the drives brought the in-tree nvme stack in, the host's module
# tree and the build dir are usable, results reach the host.
# shellcheck source=../lib.sh
. "$VM_LIB"

assert_eq "$VM_KVER" "$(uname -r)" "guest kernel"
assert_loaded nvme
assert_loaded nvme_core
assert_eq "" "$(module_taint nvme)" "in-tree nvme taint"
assert_eq 2 "$(nvme_namespaces | wc -l)" "visible nvme namespaces"
plain=$(plain_namespace) || vm_fail "no plain namespace"
head=$(multipath_head) || vm_fail "no multipath head"
vm_log "plain: $plain, multipath head: $head ($(multipath_paths "$head" | tr '\n' ' '))"
assert_eq 3 "$(ls /sys/class/nvme | wc -l)" "nvme controllers"

for m in /proc /sys /dev /run /dev/pts; do
	assert_ok mountpoint -q "$m"
done
assert_eq overlay "$(findmnt -n -o FSTYPE /)" "root filesystem type"
assert_ok touch /etc/vm-write-test
assert_ok test -d "$VM_BUILD_ROOT"

# Modules of the host tree load from the 9p root.
assert_ok modprobe dm_mod
assert_loaded dm_mod
assert_ok modprobe -r dm_mod

# Python for the syscall probes, and the results share is writable.
assert_eq OK "$(read_dev "$plain")" "read $plain"
assert_ok sh -c "echo probe >$VM_RESULTS/probe && test -s $VM_RESULTS/probe"
