# SPDX-License-Identifier: Apache-2.0
# Stacked block devices over a namespace, not mounted: a device-mapper
# linear target, then an LVM logical volume (mounted).  check and unload
# refuse, naming the dm device and its friendly name; nothing unloaded; the
# data written through the stacked device is intact.  Layout: plain.
. "$VM_LIB"
. "${0%/*}/guard-lib.sh"

dev=$(plain_namespace) || vm_fatal "no plain nvme namespace"
name=${dev#/dev/}
# No udevd: libdevmapper and LVM make their own /dev nodes.
export DM_DISABLE_UDEV=1
modprobe dm_mod || vm_fatal "modprobe dm_mod"

# 1. dm-linear, not mounted
sectors=$(blockdev --getsz "$dev")
dmsetup create --noudevsync sg-linear --table "0 $sectors linear $dev 0" || vm_fatal "dmsetup create"
kname=$(ls "/sys/block/$name/holders")
vm_log "holder of $name: $kname ($(cat "/sys/block/$kname/dm/name"))"
seed_data /dev/mapper/sg-linear

assert_guard 3 check
assert_contains "$(guard_output)" "sg-linear" "check text (friendly name)"
assert_contains "$(guard_output)" "$kname" "check text (kernel name)"
assert_guard 3 check --json
assert_usage holder device="$name" where=sg-linear what="$kname"

before=$(stack_state)
assert_guard 3 unload --json
assert_eq refused-in-use "$(jget 'j["outcome"]')" "unload outcome"
assert_usage holder device="$name" where=sg-linear
assert_stack_untouched "$before"
assert_data /dev/mapper/sg-linear
assert_ok dmsetup remove --noudevsync sg-linear

# 2. LVM: a logical volume, mounted
lvm_() { lvm "$@" --config 'activation{udev_sync=0 udev_rules=0} devices{obtain_device_list_from_udev=0}'; }
lvm_ pvcreate -qq -y "$dev" || vm_fatal "pvcreate $dev"
lvm_ vgcreate -qq sgvg "$dev" || vm_fatal "vgcreate"
lvm_ lvcreate -qq -y -n data -L 64M sgvg || vm_fatal "lvcreate"
wait_for_block /dev/sgvg/data 10 || vm_fatal "no /dev/sgvg/data"
mkfs_ext4 /dev/sgvg/data || vm_fatal "mkfs on the LV"
mount_fs /dev/sgvg/data /mnt/sg-lv || vm_fatal "mount the LV"
write_unsynced /mnt/sg-lv/payload 1024

assert_guard 3 check --json
assert_usage holder device="$name" where=sgvg-data
assert_contains "$(jget '[u["description"] for u in j["usages"] if u["kind"] == "holder"]')" \
	"mounted on /mnt/sg-lv" "holder description"
before=$(stack_state)
assert_guard 3 unload
assert_contains "$(guard_output)" "sgvg-data" "unload text"
assert_stack_untouched "$before"
assert_file_data /mnt/sg-lv/payload
assert_remounted_data /dev/sgvg/data /mnt/sg-lv
