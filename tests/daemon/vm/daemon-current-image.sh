#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End to end on a real kernel (tests/vm, systemd mode, --oot): the daemon runs
# as a Type=notify service under the host's systemd as PID 1; CRI-O is
# simulated faithfully: config.json with the real annotations in the store,
# the container's process in crio-<id>.scope (systemd-run --scope), chrooted
# into a container root whose /lib/modules/<release>/extra/mlnx-nvme/host
# holds the out-of-tree build, and a pidfile. Current image: the daemon
# unloads while the container "compiles", then loads the build from the
# container's root when the ready file appears.
. "$VM_LIB"

daemon=$VM_BUILD_ROOT/daemon/nvme-swapguard
[ -x "$daemon" ] || vm_skip "no $daemon (build first)"
[ -n "${VM_OOT_ROOT:-}" ] || vm_skip "needs run-vm.sh --oot"
[ "$(cat /proc/1/comm)" = systemd ] || vm_skip "needs systemd mode (-m systemd)"
[ -x /bin/busybox ] || vm_skip "no static /bin/busybox for the container root"

state() { sed -n 's/.*"state": *"\([a-z-]*\)".*/\1/p' /run/nvme-swapguard/state.json 2>/dev/null; }
wait_state() {
	local i
	for i in $(seq 1 600); do
		[ "$(state)" = "$1" ] && return 0
		sleep 0.1
	done
	vm_fail "state $(state), expected $1"
	journalctl -u nvme-swapguard --no-pager -q | tail -20
	return 1
}

dev=$(first_namespace) || vm_fatal "no namespace"
assert_loaded nvme

id=$(echo mofed-container | sha256sum | cut -c1-64)
croot=/var/tmp/mofed-root
mkdir -p "$croot/bin" "$croot/lib/modules"
cp -a "$VM_OOT_ROOT/lib/modules/$VM_KVER" "$croot/lib/modules/"
cp /bin/busybox "$croot/bin/busybox"

assert_ok systemd-run --quiet --unit nvme-swapguard -p Type=notify -p WatchdogSec=30 \
	-p ExecStopPost="/bin/rm -f /run/modprobe.d/nvme-swapguard.conf" "$daemon" --log-target journal
wait_state idle

# CRI-O creates the container: directory + config.json, then the process
# in its scope, then the pidfile.
ud=/run/containers/storage/overlay-containers/$id/userdata
mkdir -p "$ud"
cat > "$ud/config.json" <<JSON
{"ociVersion":"1.0.2-dev","process":{"args":["/root/entrypoint.sh"]},
 "annotations":{"io.container.manager":"cri-o","io.kubernetes.container.name":"mofed-container",
  "io.kubernetes.pod.name":"mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p",
  "io.kubernetes.pod.namespace":"nvidia-network-operator",
  "io.kubernetes.pod.uid":"0b7c3f5e-2a1d-4c8e-9f6a-1e2d3c4b5a69"},
 "linux":{"cgroupsPath":"kubepods.slice:crio:$id"}}
JSON
systemd-run --scope --quiet --unit "crio-$id.scope" chroot "$croot" /bin/busybox sleep 10000 &
cpid=$!
sleep 0.5
assert_contains "$(cat /proc/$cpid/cgroup)" "crio-$id.scope" "container cgroup"
echo "$cpid" > "$ud/pidfile"

wait_state unloaded-waiting-driver
assert_not_loaded nvme
assert_ok test -e /run/modprobe.d/nvme-swapguard.conf
assert_fails modprobe nvme

mkdir -p /run/mellanox/drivers
touch /run/mellanox/drivers/.driver-ready
wait_state swapped
assert_loaded nvme
assert_contains "$(cat /sys/module/nvme/taint)" "O" "nvme is the out-of-tree build"
assert_ok test ! -e /run/modprobe.d/nvme-swapguard.conf
wait_for_block "$dev" 30
assert_ok test -b "$dev"
journal=$(journalctl -u nvme-swapguard -o verbose --no-pager -q)
assert_contains "$journal" "MESSAGE_ID=d52b71b7f0f044ca8ed598ab2090efd0" "swap report"
assert_contains "$journal" "SWAPGUARD_ORIGIN=out-of-tree" "origin in the swap report"
assert_contains "$(systemctl show -p StatusText nvme-swapguard)" "swapped" "STATUS="
vm_log "status: $("$VM_KMOD_HELPER" status 2>&1 | head -20)"
journalctl -u nvme-swapguard --no-pager -q -o cat | sed 's/^/# journal: /'

systemctl stop nvme-swapguard
kill "$cpid" 2>/dev/null
