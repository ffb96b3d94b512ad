#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# make-initramfs.sh [OUT.cpio.gz [KVER]]
#
# OUT defaults to $VM_CACHE/initramfs-KVER.cpio.gz (what run-vm.sh uses).
# A small busybox-static initramfs for the test VM: /init (initramfs-init.sh),
# the script-mode PID 1 (initramfs-stage2.sh), and the modules that the init
# needs to mount the host's / over virtio-9p with an overlayfs on top
# (virtio_pci, 9pnet_virtio, 9p, overlay and their dependencies, in load
# order).  Everything else, including the nvme stack, is loaded later from
# the host's /lib/modules through the 9p root.
#
# Cached: rebuilt only when an input changed (OUT.stamp).
set -euo pipefail

die() { echo "make-initramfs: $*" >&2; exit 1; }

kver=${2:-$("$(dirname "$0")/default-kver.sh")}
if [ $# -ge 1 ]; then
	out=$1
elif [ -n "${VM_CACHE:-}" ]; then
	out=$VM_CACHE/initramfs-$kver.cpio.gz
	echo "make-initramfs: $out" >&2
else
	die "usage: $0 [OUT.cpio.gz [KVER]] (or set VM_CACHE)"
fi
here=$(cd "$(dirname "$0")" && pwd)
busybox=${BUSYBOX:-/bin/busybox}
moddir=/lib/modules/$kver
wanted="virtio_pci 9pnet_virtio 9p overlay"

file -L "$busybox" 2>/dev/null | grep -q 'statically linked' ||
	ldd "$busybox" 2>&1 | grep -q 'not a dynamic' ||
	die "$busybox is not static (install busybox-static)"
[ -r "$moddir/modules.dep" ] || die "no $moddir/modules.dep"

mkdir -p "$(dirname "$out")"
key=$(
	sha256sum "$here/make-initramfs.sh" "$here/initramfs-init.sh" \
		"$here/initramfs-stage2.sh" | cut -d' ' -f1
	stat -c '%n %s %Y' "$busybox" "$moddir/modules.dep"
	echo "$kver $wanted"
)

exec 9>"$out.lock"
flock 9
if [ -f "$out" ] && [ -f "$out.stamp" ] && [ "$(cat "$out.stamp")" = "$key" ]; then
	exit 0
fi

root=$(mktemp -d "${TMPDIR:-/tmp}/vm-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,dev,proc,sys,modules,lower,upper,newroot}
cp "$busybox" "$root/bin/busybox"
cp "$here/initramfs-init.sh" "$root/init"
cp "$here/initramfs-stage2.sh" "$root/stage2"
chmod 0755 "$root/init" "$root/stage2"

# Load order from modprobe itself, de-duplicated, first occurrence wins.
: >"$root/modules/order"
for m in $wanted; do
	modprobe -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r ko; do
	# Kernels built with CONFIG_MODULE_COMPRESS_* (Debian's 6.12: .ko.xz,
	# RHEL 9: .ko.xz) ship compressed modules; busybox insmod passes the
	# file to init_module(2) as it is, so the initramfs takes a decompressed
	# copy (the kernel's own in-kernel decompression, finit_module with
	# MODULE_INIT_COMPRESSED_FILE, is not what busybox calls).
	base=$(basename "$ko")
	case $ko in
	*.ko) cp "$ko" "$root/modules/" ;;
	*.ko.xz) base=${base%.xz}; xz -dc "$ko" >"$root/modules/$base" ;;
	*.ko.zst) base=${base%.zst}; zstd -qdc "$ko" >"$root/modules/$base" ;;
	*.ko.gz) base=${base%.gz}; gzip -dc "$ko" >"$root/modules/$base" ;;
	*) die "unexpected module file $ko" ;;
	esac || die "cannot decompress $ko"
	echo "$base" >>"$root/modules/order"
done
[ -s "$root/modules/order" ] || die "no modules resolved for: $wanted"

# A console node for the kernel to open before devtmpfs is mounted (needs
# root; without it /init reopens /dev/console once devtmpfs is up).
mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || :

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
echo "$key" >"$out.stamp"
