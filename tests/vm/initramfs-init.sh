#!/bin/busybox sh
# SPDX-License-Identifier: Apache-2.0
#
# /init of the test VM's initramfs (copied in by make-initramfs.sh).
#
# 1. load virtio-pci, 9p and overlayfs from the copies in /modules,
# 2. mount the host's / (9p tag "hostroot", read-only) as the lower layer of
#    an overlayfs whose upper layer is a tmpfs: the guest sees the host's
#    userspace and /lib/modules, and may write anywhere without touching the
#    host,
# 3. mount the writable results share (9p tag "results") at /mnt/vm-results,
# 4. switch_root, by swapguard.mode= on the kernel command line:
#      script  : PID 1 is /.vm/stage2 (busybox sh) that runs the test,
#      systemd : PID 1 is the host's /lib/systemd/systemd, which starts
#                swapguard-vm.target (written below into the overlay).
# Anything going wrong here prints VM-INIT-FAILED and powers off: the host
# sees no result and reports a failure (never a skip).

/bin/busybox --install -s /bin
export PATH=/bin

fail() {
	echo "VM-INIT-FAILED: $*"
	poweroff -f
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1

mode=script
for arg in $(cat /proc/cmdline); do
	case $arg in
	swapguard.mode=*) mode=${arg#*=} ;;
	esac
done

while read -r m; do
	insmod "/modules/$m" || fail "insmod $m"
done </modules/order

msize=512000
mkdir -p /lower /upper /newroot
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=$msize,cache=loose hostroot /lower ||
	fail "mount 9p hostroot"
mount -t tmpfs -o mode=0755 tmpfs /upper || fail "mount tmpfs"
mkdir -p /upper/upper /upper/work
mount -t overlay -o lowerdir=/lower,upperdir=/upper/upper,workdir=/upper/work overlay /newroot ||
	fail "mount overlay"

mkdir -p /newroot/mnt/vm-results /newroot/.vm
mount -t 9p -o trans=virtio,version=9p2000.L,msize=$msize results /newroot/mnt/vm-results ||
	fail "mount 9p results"
cp /bin/busybox /stage2 /newroot/.vm/

# udev (systemd mode, or script mode with VM_UDEV=1) loads a module for every
# modalias it sees; under TCG over 9p each costs ~0.1-0.5 s.  Keep it to the
# storage we test: nvme, dm, loop still load (by alias or by name).
mkdir -p /newroot/etc/modprobe.d
for m in floppy pcspkr i2c_piix4 ata_piix ata_generic pata_acpi serio_raw \
	evdev button joydev psmouse aesni_intel ghash_clmulni_intel \
	crc32_pclmul crc32c_intel sha256_ssse3 sha512_ssse3 sha1_ssse3 \
	polyval_clmulni polyval_generic aes_generic cryptd intel_rapl_msr \
	intel_rapl_common qemu_fw_cfg sg sr_mod cdrom libata scsi_mod \
	intel_pmc_core kvm kvm_intel kvm_amd rapl ac battery powernow_k8 \
	acpi_cpufreq pcc_cpufreq input_leds edac_mce_amd; do
	echo "blacklist $m"
done >/newroot/etc/modprobe.d/swapguard-vm-blacklist.conf

# The host's runtime state (/run/systemd/system, pid files, ...) must not
# leak into the guest.  /tmp stays the overlay's: a build dir may live there.
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /newroot/run || fail "mount /run"
: >/newroot/etc/fstab

for d in proc sys dev; do
	mount --move /$d /newroot/$d || fail "move /$d"
done

case $mode in
script)
	exec switch_root /newroot /.vm/busybox sh /.vm/stage2
	;;
systemd)
	# A minimal target: sysinit (journald, udevd, coldplug) + the test unit.
	u=/newroot/etc/systemd/system
	mkdir -p $u
	cat >$u/swapguard-vm.target <<-'EOF'
	[Unit]
	Description=swapguard VM test
	Requires=basic.target swapguard-test.service
	After=basic.target swapguard-test.service
	AllowIsolate=yes
	EOF
	cat >$u/swapguard-test.service <<-'EOF'
	[Unit]
	Description=swapguard VM test script
	After=basic.target systemd-udev-trigger.service
	SuccessAction=poweroff-force
	FailureAction=poweroff-force
	[Service]
	Type=oneshot
	StandardOutput=journal+console
	StandardError=journal+console
	ExecStart=/bin/bash -c '. /mnt/vm-results/env && exec /bin/bash "$VM_HARNESS/guest-run.sh"'
	EOF
	# systemd-tmpfiles --boot would empty /tmp ("D /tmp"): over the 9p root
	# that walks the host's whole /tmp (seconds) and hides it from the guest,
	# while test scripts and build dirs may live there.  Keep /tmp as it is.
	mkdir -p /newroot/etc/tmpfiles.d
	echo 'd /tmp 1777 root root -' >/newroot/etc/tmpfiles.d/tmp.conf
	# Journal in /run only: no flush to /var over 9p.
	mkdir -p /newroot/etc/systemd/journald.conf.d
	printf '[Journal]\nStorage=volatile\n' >/newroot/etc/systemd/journald.conf.d/vm.conf
	# Generators only slow the boot down here (no fstab, no getty, no LUKS).
	mkdir -p /newroot/etc/systemd/system-generators
	for g in /newroot/lib/systemd/system-generators/*; do
		ln -sf /dev/null /newroot/etc/systemd/system-generators/${g##*/}
	done
	# Nothing interactive, nothing that waits for hardware or a network we
	# lack, nothing that rescans storage behind the tests' back.
	for m in systemd-tmpfiles-clean.timer dbus.socket getty.target \
		serial-getty@ttyS0.service getty@tty1.service \
		systemd-networkd-wait-online.service networking.service \
		systemd-timesyncd.service cron.service ssh.service \
		systemd-logind.service dbus.service e2scrub_reap.service \
		apt-daily.timer apt-daily-upgrade.timer man-db.timer \
		dpkg-db-backup.timer e2scrub_all.timer fstrim.timer \
		systemd-firstboot.service apparmor.service systemd-pstore.service \
		blk-availability.service lvm2-monitor.service lvm2-lvmpolld.socket \
		dm-event.socket systemd-binfmt.service \
		proc-sys-fs-binfmt_misc.automount systemd-update-utmp.service \
		systemd-journal-flush.service systemd-sysusers.service \
		systemd-modules-load.service nvmf-autoconnect.service \
		nvmefc-boot-connections.service; do
		ln -sf /dev/null $u/$m
	done
	exec switch_root /newroot /lib/systemd/systemd \
		systemd.unit=swapguard-vm.target
	;;
*)
	fail "unknown swapguard.mode=$mode"
	;;
esac
fail "switch_root failed"
