#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The node booted with module.sig_enforce=1 (run-vm.sh --append;
# Secure Boot's lockdown does the same on RHCOS): the daemon unloads the
# in-tree stack while the driver container compiles; the container's
# `openibd restart` cannot load its own unsigned mlx_compat ("Key was
# rejected by service") and the container exits before any ready file, as
# the real one does; the daemon restores the in-tree stack (Debian's,
# signed) and the namespace comes back with its data. Full matrix only: the
# daemon's own refused load is vm-daemon-namespace-signed's (the same
# enforcement switched on after the container's mlx_compat is in).
. "$VM_LIB"
. "${BASH_SOURCE[0]%/*}/lib-swapguard.sh"
[ "$(cat /sys/module/module/parameters/sig_enforce 2>/dev/null)" = Y ] ||
	vm_skip "module.sig_enforce is not on (run-vm.sh --append module.sig_enforce=1)"
sg_require
dev=$(first_namespace) || vm_fatal "no namespace"
mkfs_ext4 "$dev" || vm_fatal "mkfs $dev"
mount_fs "$dev" /mnt/sg-data || vm_fatal "mount $dev"
write_unsynced /mnt/sg-data/payload 256
sync -f /mnt/sg-data/payload
umount /mnt/sg-data

sg_setup
sg_container_new mofed-container nvidia-network-operator
sg_container_start
sg_wait_state unloaded-waiting-driver
assert_not_loaded nvme

sg_step "The compile ends; openibd restart meets the signature check"
touch "$SG_CROOT/tmp/compiled"
for _ in $(seq 600); do sg_container_alive || break; vm_nap 0.1; done
assert_fails sg_container_alive
assert_contains "$(cat "$SG_CLOG")" "Key was rejected by service" "the container's log (openibd refused)"
assert_not_loaded mlx_compat
sg_wait_state restored 60
sg_assert_in_tree
wait_for_block "$dev" 30 || vm_fail "$dev did not come back"
assert_journal RESTORED SWAPGUARD_STATE=restored SWAPGUARD_ORIGIN=in-tree
mount_fs "$dev" /mnt/sg-data ro || vm_fail "mount $dev after the restore"
drop_caches
assert_ok verify_written /mnt/sg-data/payload
umount /mnt/sg-data
sg_show_journal
sg_stop
