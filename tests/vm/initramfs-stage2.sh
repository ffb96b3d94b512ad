#!/.vm/busybox sh
# SPDX-License-Identifier: Apache-2.0
#
# PID 1 of the test VM in swapguard.mode=script (after switch_root into the
# overlay over the host's /).  It runs the harness's guest-run.sh with the
# host's bash as its only child, then powers the VM off.  PID 1 never exits:
# if it did the kernel would panic, and with panic=-1 + qemu -no-reboot the
# host would see a VM without a result, which it reports as a failure.

bb=/.vm/busybox
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

$bb mkdir -p /dev/pts /dev/shm /sys/kernel/debug
$bb mount -t devpts devpts /dev/pts 2>/dev/null
$bb mount -t tmpfs tmpfs /dev/shm 2>/dev/null
$bb mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
$bb ln -sf /proc/self/fd /dev/fd 2>/dev/null
$bb ln -sf /proc/self/fd/0 /dev/stdin 2>/dev/null
$bb ln -sf /proc/self/fd/1 /dev/stdout 2>/dev/null
$bb ln -sf /proc/self/fd/2 /dev/stderr 2>/dev/null
$bb hostname swapguard-vm

. /mnt/vm-results/env
/bin/bash "$VM_HARNESS/guest-run.sh" </dev/console >/dev/console 2>&1
echo "stage2: guest-run exited $?" >/dev/console

$bb sync
$bb poweroff -f
# Not reached; if poweroff failed, let the kernel stop the VM.
echo o >/proc/sysrq-trigger
$bb sleep 1000000
