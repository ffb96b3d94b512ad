#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Runs INSIDE the test VM, in both modes (script: started by the script-mode
# PID 1; systemd: ExecStart of swapguard-test.service).  Reads the run's
# settings from /mnt/vm-results/env (written by run-vm.sh on the host), makes
# sure the in-tree nvme stack is loaded and the namespaces are there, runs the
# test script and hands its exit code back through the results share
# (/mnt/vm-results/rc) and the console ("VM-RESULT rc=N").
set -u

res=/mnt/vm-results
# shellcheck source=/dev/null
. "$res/env"
export VM_MODE VM_LAYOUT VM_HARNESS VM_BUILD_ROOT VM_CACHE VM_OOT_ROOT VM_OOT_ROOT_V2 VM_OOT_SHAPE \
	VM_OOT_SHAPES VM_OOT_ROOT_LINK VM_OOT_ROOT_OWN \
	VM_EXPECT_NS VM_KVER
export VM_LIB=$VM_HARNESS/lib.sh
export VM_RESULTS=$res
export VM_KMOD_HELPER=$VM_BUILD_ROOT/kmod-helper/nvme-swapguard-kmod
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# LANG=C: under TCG a tool that loads the C.UTF-8 locale pays ~30 ms of
# emulated CPU for it at each start (100 x cat: 10.1 s against 7.2 s in a
# script-mode guest), and the cases start a few thousand processes: the
# host CPU of vm-daemon-swap went from ~258 s to 227 s. The scripts and
# what they check are ASCII; the daemon and the units run under systemd's
# environment, not this one.
export HOME=/root LANG=C

uptime_s() { cut -d' ' -f1 /proc/uptime; }

echo "VM-BOOTED uptime=$(uptime_s)s mode=$VM_MODE layout=$VM_LAYOUT"
echo "booted=$(uptime_s)" >"$res/timing"
# The kernel log goes to the host as it happens, so a guest that hangs or
# panics still leaves it behind; rewritten whole at the end.
dmesg -w >"$res/dmesg.txt" 2>&1 &
dmesg_follower=$!

# How the in-tree nvme stack gets loaded:
#  - systemd mode: udevd's coldplug (systemd-udev-trigger) loads nvme from the
#    PCI modalias, as on a real node; we only wait for the namespaces.
#  - script mode: no udevd unless VM_UDEV=1; we modprobe nvme ourselves, which
#    is what udev would do on a real node (nvme pulls in nvme_core, t10_pi...).
if [ "$VM_MODE" = script ]; then
	if [ "${VM_UDEV:-0}" = 1 ]; then
		/lib/systemd/systemd-udevd --daemon --resolve-names=never
		udevadm trigger --action=add --type=all
		udevadm settle --timeout=60
	elif [ "$VM_EXPECT_NS" -gt 0 ]; then
		modprobe nvme || echo "guest-run: modprobe nvme failed"
	fi
fi

# Namespace probing is asynchronous (nvme_reset_work): wait for the block
# devices the layout promises (multipath heads count once; hidden paths
# nvmeXcYnZ never get a /dev node).
count_ns() {
	local n=0 d
	for d in /sys/block/nvme*; do
		[[ ${d##*/} =~ ^nvme[0-9]+n[0-9]+$ ]] && [ -b "/dev/${d##*/}" ] && n=$((n + 1))
	done
	echo $n
}
deadline=$((SECONDS + 60))
while [ "$(count_ns)" -lt "$VM_EXPECT_NS" ]; do
	if [ $SECONDS -ge $deadline ]; then
		echo "guest-run: only $(count_ns) of $VM_EXPECT_NS nvme namespaces appeared"
		break
	fi
	sleep 0.1
done
echo "nvme_ready=$(uptime_s)" >>"$res/timing"

work=$(mktemp -d /tmp/vmtest.XXXXXX)
cd "$work" || exit 1
echo "VM-TEST-START $VM_SCRIPT"
start=$(uptime_s)
# shellcheck disable=SC2086
/bin/bash "$VM_SCRIPT" $VM_SCRIPT_ARGS 2>&1 | tee "$res/output.log"
rc=${PIPESTATUS[0]}
end=$(uptime_s)
echo "test_start=$start" >>"$res/timing"
echo "test_end=$end" >>"$res/timing"

cd /
# Where the guest's CPU went, for the host's log: under TCG a tick here is
# the host's too. The busiest control groups (systemd mode: the test
# script's unit holds every tool it ran; the root's own figure less its
# children's is the kernel's threads and interrupts).
read -r _ c_user c_nice c_sys c_idle c_iowait c_irq c_softirq _ </proc/stat
echo "guest-cpu: user $(((c_user + c_nice) / 100)) s, system $((c_sys / 100)) s, irq $(((c_irq + c_softirq) / 100)) s," \
	"idle $(((c_idle + c_iowait) / 100)) s (USER_HZ 100)"
if [ -r /sys/fs/cgroup/cgroup.procs ]; then
	find /sys/fs/cgroup -mindepth 1 -name cpu.stat 2>/dev/null | while read -r f; do
		read -r _ usec <"$f" && echo "$((usec / 100000)) ${f#/sys/fs/cgroup/}"
	done | sort -rn | head -n 8 | awk '{ printf "guest-cpu: %5.1f s %s\n", $1 / 10, $2 }'
fi
kill "$dmesg_follower" 2>/dev/null
wait "$dmesg_follower" 2>/dev/null
dmesg >"$res/dmesg.txt" 2>&1
echo "$rc" >"$res/rc.tmp" && mv "$res/rc.tmp" "$res/rc"
sync
echo "VM-RESULT rc=$rc"
exit "$rc"
