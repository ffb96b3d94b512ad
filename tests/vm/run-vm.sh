#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# run-vm.sh [options] -- SCRIPT [ARGS...]
#
# Boots Debian's kernel under qemu-system-x86_64 (TCG) with emulated NVMe
# drives, the host's / as a read-only 9p root under an overlayfs, and runs
# SCRIPT (a bash script, absolute or relative path on the host) as root in the
# guest.  Exits with the script's exit code (0 pass, 77 skip, other: fail).
# A guest that does not boot or does not report back is a failure (exit 1).
#
# Options:
#   -K, --kver REL      the kernel to boot: a release installed in /boot and
#                       /lib/modules [$VM_KVER, else the one Debian's
#                       linux-image-amd64 metapackage depends on:
#                       default-kver.sh]; meson's other-kernel entries use it
#   -l, --layout NAME   drive layout: none | plain | two-ctrl | multipath |
#                       mixed (plain + multipath)          [plain]
#   -m, --mode MODE     script | systemd                   [script]
#   -t, --timeout SEC   kill the VM after SEC seconds      [300]
#   -b, --build-root D  the meson build dir, passed to the guest
#                       [$VM_BUILD_ROOT, $MESON_BUILD_ROOT or <repo>/build]
#   -c, --cache DIR     cache for initramfs / oot build    [$VM_CACHE,
#                       BUILD_ROOT/vm-cache or ~/.cache/nvme-swapguard-vm]
#       --oot           build (cached) the NVIDIA-shaped stand-in (build-oot-nvme.sh:
#                       mlx_compat, GDS exports, RPM layout) and pass its
#                       container roots as $VM_OOT_ROOT (v1 hooks) and
#                       $VM_OOT_ROOT_V2 (nvme_v2_* hooks)
#       --oot-shape S   link | own: the stand-in links the kernel's
#                       nvme_auth/nvme_keyring, or ships its own
#                       (drivers/nvme/common); [$VM_OOT_SHAPE or link];
#                       cached apart (oot-nvme-KVER, oot-nvme-KVER-own); the
#                       guest gets the shape built as $VM_OOT_SHAPE
#       --oot-both      with --oot: build the other shape too and pass both
#                       container roots (v1) as $VM_OOT_ROOT_LINK and
#                       $VM_OOT_ROOT_OWN, for a case whose driver containers
#                       change shape (one ships nvme_auth, the next links
#                       the kernel's); a kernel with one shape gives the same
#                       root twice ($VM_OOT_SHAPES says which were built)
#   -u, --udev          script mode: start udevd and coldplug (nvme then comes
#                       from udev instead of an explicit modprobe)
#   -s, --smp N         vCPUs                              [1]
#       --mem MB        guest memory                       [768]
#       --disk-size SZ  size of each sparse disk image     [512M]
#   -k, --keep          keep the run dir (results, console log, disks)
#   -v, --verbose       full kernel log on the console
#                       (env VM_BOOT_RETRIES: reboots after a guest died
#                       before reaching the harness, default 1; hangs never)
#       --append ARGS   extra kernel command line arguments
#                       (env VM_CPU: qemu's -cpu model, default max)
#
# The summary line gives the host CPU the guest cost beside its wall time:
# on two cores that, not the wall time, is what a case takes from the others.
# Run dir: CACHE/runs/<test>.XXXXXX/{results/,disks/}; results/console.log is
# the serial console, results/dmesg.txt the guest's kernel log, results/
# output.log the script's output, results/timing boot/test timestamps.  It is
# removed after a pass unless --keep, and always kept after a failure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
layout=plain mode=script timeout=300 smp=1 mem=768 disk_size=512M
keep=0 verbose=0 oot=0 oot_both=0 udev=0 extra_append=
oot_shape=${VM_OOT_SHAPE:-link}
build_root=${VM_BUILD_ROOT:-${MESON_BUILD_ROOT:-}}
if [ -z "$build_root" ] && [ -d "$here/../../build" ]; then
	build_root=$here/../../build
fi
cache=${VM_CACHE:-}

die() { echo "run-vm: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case $1 in
	-K | --kver) export VM_KVER=$2; shift 2 ;;
	-l | --layout) layout=$2; shift 2 ;;
	-m | --mode) mode=$2; shift 2 ;;
	-t | --timeout) timeout=$2; shift 2 ;;
	-b | --build-root) build_root=$2; shift 2 ;;
	-c | --cache) cache=$2; shift 2 ;;
	--oot) oot=1; shift ;;
	--oot-shape) oot_shape=$2; shift 2 ;;
	--oot-both) oot_both=1; shift ;;
	-u | --udev) udev=1; shift ;;
	-s | --smp) smp=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--disk-size) disk_size=$2; shift 2 ;;
	-k | --keep) keep=1; shift ;;
	-v | --verbose) verbose=1; shift ;;
	--append) extra_append=$2; shift 2 ;;
	--) shift; break ;;
	-h | --help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
done
[ $# -ge 1 ] || die "usage: $0 [options] -- SCRIPT [ARGS...]"
script=$(realpath "$1")
shift
[ -r "$script" ] || die "no test script $script"
if [ -n "$build_root" ]; then
	build_root=$(realpath "$build_root")
	cache=${cache:-$build_root/vm-cache}
fi
cache=$(realpath -m "${cache:-${XDG_CACHE_HOME:-$HOME/.cache}/nvme-swapguard-vm}")
case $mode in script | systemd) ;; *) die "unknown mode $mode" ;; esac

# The kernel: $VM_KVER, else the one linux-image-amd64 depends on (6.1 on
# bookworm), never just the newest installed (default-kver.sh says why).
kver=$("$here/default-kver.sh") || die "no kernel to boot (VM_KVER=${VM_KVER:-})"
kernel=/boot/vmlinuz-$kver
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not installed"

mkdir -p "$cache/runs"
t_prep=$(date +%s.%N)
"$here/make-initramfs.sh" "$cache/initramfs-$kver.cpio.gz" "$kver"
if [ "${VM_BZIMAGE:-0}" = 1 ]; then
	boot_kernel=$kernel
else
	boot_kernel=$cache/vmlinux-$kver
	# 3: this bzImage cannot be unpacked here (the reason is on stderr);
	# the bzImage boots the same kernel, only slower.
	erc=0
	"$here/extract-vmlinux.sh" "$boot_kernel" "$kver" || erc=$?
	case $erc in
	0) ;;
	3) boot_kernel=$kernel ;;
	*) die "extract-vmlinux.sh failed for $kver" ;;
	esac
fi
oot_root= oot_root_v2= oot_roots=() oot_shapes=
case $oot_shape in link | own) ;; *) die "unknown --oot-shape $oot_shape (link or own)" ;; esac
[ $oot_both = 0 ] || [ $oot = 1 ] || die "--oot-both needs --oot"
# oot_build SHAPE: the stand-in of SHAPE (cached); prints its directory.
oot_build() {
	local odir=$cache/oot-nvme-$kver
	[ "$1" = own ] && odir+=-own
	"$here/build-oot-nvme.sh" --shape "$1" "$odir" "$kver" >&2
	echo "$odir"
}
# built_shape DIR: what was built (a kernel without modular nvme_auth has one shape).
built_shape() { sed -n 's/^# shape: \([a-z]*\).*$/\1/p' "$1/v1/oot-deps.txt"; }
if [ $oot = 1 ]; then
	odir=$(oot_build "$oot_shape")
	oot_root=$odir/v1
	oot_root_v2=$odir/v2
	oot_shape=$(built_shape "$odir")
	oot_shapes=$oot_shape
	# A kernel without modular drivers/nvme/common (6.1) has one shape:
	# the same root twice, nothing more to build.
	if [ $oot_both = 1 ] && ! grep -q '^kernel/drivers/nvme/common/' "/lib/modules/$kver/modules.dep"; then
		oot_roots=("$oot_root" "$oot_root")
	elif [ $oot_both = 1 ]; then
		other=link
		[ "$oot_shape" = link ] && other=own
		odir2=$(oot_build "$other")
		oot_shapes+=" $other"
		# [link root, own root]
		if [ "$oot_shape" = link ]; then oot_roots=("$oot_root" "$odir2/v1"); else oot_roots=("$odir2/v1" "$oot_root"); fi
	fi
fi

name=$(basename "$script" .sh)
run=$(mktemp -d "$cache/runs/$name.XXXXXX")
res=$run/results
disks=$run/disks
mkdir -p "$res" "$disks"

# --- drive layouts ---------------------------------------------------------
qdev=()
disk() { # disk ID -> adds a sparse raw image as drive ID
	truncate -s "$disk_size" "$disks/$1.img"
	qdev+=(-drive "if=none,id=$1,file=$disks/$1.img,format=raw,cache=unsafe,aio=threads")
}
plain_ctrl() { # plain_ctrl N: one controller, one private namespace
	disk "pd$1"
	qdev+=(-device "nvme,id=pc$1,serial=SGPLAIN$1,drive=pd$1")
}
multipath_subsys() { # one subsystem, two controllers, one shared namespace
	disk mpd0
	qdev+=(-device "nvme-subsys,id=mpsub0,nqn=nqn.2024-01.io.swapguard:mp0")
	qdev+=(-device "nvme,id=mpc0,serial=SGMP0,subsys=mpsub0")
	qdev+=(-device "nvme,id=mpc1,serial=SGMP0,subsys=mpsub0")
	qdev+=(-device "nvme-ns,drive=mpd0,nsid=1,shared=on,bus=mpc1")
}
case $layout in
none) expect_ns=0 ;;
plain) plain_ctrl 0; expect_ns=1 ;;
two-ctrl) plain_ctrl 0; plain_ctrl 1; expect_ns=2 ;;
multipath) multipath_subsys; expect_ns=1 ;;
mixed) plain_ctrl 0; multipath_subsys; expect_ns=2 ;;
*) die "unknown layout $layout" ;;
esac

# --- settings for the guest -------------------------------------------------
{
	printf 'VM_MODE=%q\n' "$mode"
	printf 'VM_LAYOUT=%q\n' "$layout"
	printf 'VM_HARNESS=%q\n' "$here"
	printf 'VM_BUILD_ROOT=%q\n' "$build_root"
	printf 'VM_CACHE=%q\n' "$cache"
	printf 'VM_OOT_ROOT=%q\n' "$oot_root"
	printf 'VM_OOT_ROOT_V2=%q\n' "$oot_root_v2"
	printf 'VM_OOT_SHAPE=%q\n' "$oot_shape"
	printf 'VM_OOT_SHAPES=%q\n' "$oot_shapes"
	printf 'VM_OOT_ROOT_LINK=%q\n' "${oot_roots[0]:-}"
	printf 'VM_OOT_ROOT_OWN=%q\n' "${oot_roots[1]:-}"
	printf 'VM_EXPECT_NS=%q\n' "$expect_ns"
	printf 'VM_KVER=%q\n' "$kver"
	printf 'VM_UDEV=%q\n' "$udev"
	printf 'VM_SCRIPT=%q\n' "$script"
	printf 'VM_SCRIPT_ARGS=%q\n' "$*"
} >"$res/env"

loglevel=4
[ $verbose = 1 ] && loglevel=7
append="console=ttyS0,115200 panic=-1 loglevel=$loglevel swapguard.mode=$mode"
append+=" mitigations=off i8042.noaux i8042.nokbd i8042.nopnp nmi_watchdog=0"
append+=" tsc=reliable no_timer_check random.trust_cpu=on"
[ $mode = systemd ] && append+=" systemd.show_status=false systemd.log_level=warning"
[ -n "$extra_append" ] && append+=" $extra_append"

# shellcheck disable=SC2054 # commas belong to qemu option values
qemu=(
	qemu-system-x86_64 -machine pc,accel=tcg -cpu "${VM_CPU:-max}" -smp "$smp" -m "$mem"
	-nodefaults -no-user-config -display none -no-reboot
	-kernel "$boot_kernel" -initrd "$cache/initramfs-$kver.cpio.gz" -append "$append"
	-chardev "stdio,id=con,signal=off,logfile=$res/console.log"
	-serial chardev:con
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	-virtfs "local,path=$res,mount_tag=results,security_model=none,multidevs=remap"
	"${qdev[@]}"
)
echo "run-vm: $name kernel=$kver layout=$layout mode=$mode${oot_root:+ oot-shape=$oot_shape} run dir $run" >&2
# A guest that dies before reaching the harness (qemu exits, no VM-BOOTED
# on the console, no timeout) is booted once more: the second failure is
# the verdict.  Hangs are never retried.  VM_BOOT_RETRIES=0 disables this.
retries=${VM_BOOT_RETRIES:-1}
# The host CPU the guest cost (qemu's user+sys, from this shell's children
# times): under TCG this, not the wall time, is what a test takes from the
# others.  times runs in this shell: a command substitution's fork starts at 0.
cpu_mark() { times >"$run/cpu-$1"; }
cpu_seconds() { awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%.1f", t }' "$run/cpu-$1"; }
cpu_mark before
t_start=$(date +%s.%N)
while :; do
	set +e
	timeout -k 10 "$timeout" "${qemu[@]}" </dev/null
	qrc=$?
	set -e
	[ -f "$res/rc" ] || [ "$qrc" = 124 ] || [ "$qrc" = 137 ] && break
	grep -q 'VM-BOOTED' "$res/console.log" 2>/dev/null && break
	[ "$retries" -gt 0 ] || break
	retries=$((retries - 1))
	mv "$res/console.log" "$res/console.boot-failure.$retries.log"
	echo "run-vm: WARNING: the guest died before the harness started (qemu exit $qrc);" \
		"console kept as $res/console.boot-failure.$retries.log; booting again" >&2
done
t_end=$(date +%s.%N)
cpu_mark after

elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
console_rc=$(sed -n 's/^.*VM-RESULT rc=\([0-9]*\).*$/\1/p' "$res/console.log" 2>/dev/null | tail -n1)
if [ -f "$res/rc" ]; then
	rc=$(cat "$res/rc")
	verdict="script exited $rc"
elif [ -n "$console_rc" ]; then
	# The results share failed us, the console did not.
	rc=$console_rc verdict="script exited $rc (from the console; no results/rc)"
elif [ $qrc = 124 ] || [ $qrc = 137 ]; then
	rc=1 verdict="VM TIMED OUT after ${timeout}s (no result)"
elif ! grep -q 'VM-BOOTED' "$res/console.log" 2>/dev/null; then
	rc=1 verdict="VM gave no result (qemu exit $qrc): it never reached the harness (boot failure)"
else
	rc=1 verdict="VM gave no result (qemu exit $qrc): the guest stopped before reporting"
fi
case $rc in ''|*[!0-9]*) rc=1 ;; esac
timing=$([ -f "$res/timing" ] && tr '\n' ' ' <"$res/timing" || :)
echo "run-vm: $name: $verdict; prep $(elapsed "$t_prep" "$t_start")s," \
	"vm wall $(elapsed "$t_start" "$t_end")s, host CPU $(elapsed "$(cpu_seconds before)" "$(cpu_seconds after)")s; guest uptime: $timing" >&2
# VM_SAVE_TO: what a passing script left in results/save/ is copied there,
# for checks on the host after the VM (tests/fleet/vm-documents.sh).
if [ "$rc" = 0 ] && [ -n "${VM_SAVE_TO:-}" ] && [ -d "$res/save" ]; then
	mkdir -p "$VM_SAVE_TO" && cp -r "$res/save/." "$VM_SAVE_TO/"
fi
if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
	echo "run-vm: FAILED, kept $run (console: $res/console.log, kernel log: $res/dmesg.txt)" >&2
	if [ ! -f "$res/rc" ]; then
		echo "----- last 40 console lines -----" >&2
		tail -n 40 "$res/console.log" >&2 || :
	fi
elif [ $keep = 1 ]; then
	echo "run-vm: kept $run" >&2
else
	rm -rf "$run"
fi
exit "$rc"
