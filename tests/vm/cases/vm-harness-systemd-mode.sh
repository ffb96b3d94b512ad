# SPDX-License-Identifier: Apache-2.0
# Self-test of the harness in systemd mode: the host's systemd is PID 1 with
# journald and udevd, this script runs as swapguard-test.service, udev's
# coldplug loaded the in-tree nvme stack, and the VM powers off afterwards.
# shellcheck source=../lib.sh
. "$VM_LIB"

assert_eq systemd "$(cat /proc/1/comm)" "PID 1"
assert_ok systemctl is-active --quiet systemd-journald.service
assert_ok systemctl is-active --quiet systemd-udevd.service
assert_eq swapguard-test.service "$(systemctl list-units --no-legend --plain --state=activating 'swapguard-*' | awk '{print $1}')" "the unit running us"
assert_contains "$(cat /proc/self/cgroup)" "swapguard-test.service" "our cgroup"
assert_loaded nvme
dev=$(first_namespace) || vm_fail "no nvme namespace"
assert_ok udevadm info --query=property --name="$dev"
assert_contains "$(udevadm info --query=property --name="$dev")" "ID_SERIAL=" "udev properties of $dev"
assert_ok test -L /dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_SGPLAIN0
vm_log "systemd: $(systemctl --version | head -n1); boot: $(systemd-analyze 2>/dev/null | head -n1)"
assert_ok sh -c "journalctl -b --no-pager -q | grep -q ."
