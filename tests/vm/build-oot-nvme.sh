#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# build-oot-nvme.sh OUTDIR [KVER]
#
# Builds the kernel's own drivers/nvme/host (6.1 sources from Debian's
# linux-source package) as out-of-tree modules against linux-headers-KVER and
# lays them out like NVIDIA's mlnx-nvme package inside a driver container:
#
#   OUTDIR/lib/modules/KVER/extra/mlnx-nvme/host/{nvme,nvme-core,...}.ko
#   OUTDIR/lib/modules/KVER/modules.dep        (depmod -b OUTDIR KVER)
#
# Such a module loads with taint "OE" (out-of-tree, unsigned), which is what
# the real NVIDIA build looks like on a node.
#
# Cross-tree dependencies (checked with `modinfo -F depends` on the result and
# against /lib/modules/KVER/modules.symbols; see oot-deps.txt in OUTDIR):
#   YES, they do.  nvme-core depends on t10-pi (t10_pi), which lives only in
#   the host tree (kernel/block/t10-pi.ko, itself needing crc64-rocksoft,
#   crc-t10dif, crc64, crct10dif_common); nvme-rdma also needs ib_core and
#   rdma_cm from the host tree.  nvme, nvme-fabrics, nvme-tcp and nvme-fc
#   depend only on modules of the container tree.  depmod -b OUTDIR silently
#   drops the unresolved edges, so OUTDIR's modules.dep lists only the
#   intra-tree ones (nvme -> nvme-core): a loader must resolve t10_pi & co.
#   from the HOST tree (/lib/modules/KVER) before insmod'ing nvme-core from
#   the container tree, as on a real node (where NVIDIA's build adds
#   mlx_compat, which only openibd loads).
#
# Cached: the result is reused as long as the source tarball, the headers,
# the kernel config and this script are unchanged (OUTDIR/.stamp).
set -euo pipefail

die() { echo "build-oot-nvme: $*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: $0 OUTDIR [KVER]"
outdir=$1
kver=${2:-}
if [ -z "$kver" ]; then
	# The guest kernel, not the host's `uname -r`: the first installed image.
	kver=$(ls /lib/modules | sort -V | tail -n1)
fi
src_tar=${LINUX_SOURCE_TAR:-/usr/src/linux-source-6.1.tar.xz}
hdrs=/usr/src/linux-headers-$kver
config=/boot/config-$kver

[ -r "$src_tar" ] || die "no kernel source tarball $src_tar"
[ -d "$hdrs" ] || die "no kernel headers in $hdrs"
[ -r "$config" ] || die "no kernel config $config"

mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)

stamp_key() {
	stat -c '%n %s %Y' "$src_tar" "$config" "$hdrs/Module.symvers" \
		"$hdrs/include/config/auto.conf"
	sha256sum "$0" | cut -d' ' -f1
	echo "$kver"
}
key=$(stamp_key)

exec 9>"$outdir/.lock"
flock 9
if [ -f "$outdir/.stamp" ] && [ "$(cat "$outdir/.stamp")" = "$key" ]; then
	exit 0
fi
rm -f "$outdir/.stamp"

t0=$(date +%s.%N)
work=$outdir/build
rm -rf "${work:?}" "${outdir:?}/lib"
mkdir -p "$work"

# Only the nvme host (and common, for auth on newer kernels) directories.
tar -C "$work" -xJf "$src_tar" --strip-components=1 --wildcards \
	'linux-source-*/drivers/nvme/host/*' 'linux-source-*/drivers/nvme/common/*' \
	2>/dev/null || tar -C "$work" -xJf "$src_tar" --strip-components=1 \
	--wildcards 'linux-source-*/drivers/nvme/host/*'
[ -f "$work/drivers/nvme/host/core.c" ] || die "drivers/nvme/host not in $src_tar"

# Take the CONFIG_NVME_* choices of the kernel we build for, so the module set
# and the code paths (multipath, hwmon) match the in-tree build.  autoconf.h in
# the headers already carries the same values for the preprocessor; the make
# variables only select which objects kbuild builds.
mapfile -t cfg < <(grep -E '^CONFIG_(BLK_DEV_NVME|NVME_[A-Z_]+)=' "$config" |
	grep -v '^CONFIG_NVME_TARGET')
# nvme-apple is arm64-only.
cfg+=(CONFIG_NVME_APPLE=n)

# nvme-rdma needs the RDMA headers from the full source tree (only partly in
# linux-headers); build it when it compiles, skip it otherwise.
build_dir=$work/drivers/nvme/host
log=$outdir/build.log
if ! make -C "$hdrs" M="$build_dir" "${cfg[@]}" -j"$(nproc)" modules >"$log" 2>&1; then
	if grep -q 'rdma' "$log"; then
		echo "build-oot-nvme: nvme-rdma failed to build, retrying without it" >>"$log"
		make -C "$hdrs" M="$build_dir" "${cfg[@]}" CONFIG_NVME_RDMA=n \
			-j"$(nproc)" modules >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "build failed, see $log"; }
	else
		tail -n 30 "$log" >&2
		die "build failed, see $log"
	fi
fi

dest=$outdir/lib/modules/$kver/extra/mlnx-nvme/host
mkdir -p "$dest"
cp "$build_dir"/*.ko "$dest"/
# A real container tree carries the kernel's modules.builtin*; give depmod
# those and a modules.order so it runs quietly.
for f in modules.builtin modules.builtin.modinfo; do
	cp "/lib/modules/$kver/$f" "$outdir/lib/modules/$kver/" 2>/dev/null || :
done
(cd "$outdir/lib/modules/$kver" && ls extra/mlnx-nvme/host/*.ko) \
	>"$outdir/lib/modules/$kver/modules.order"
depmod -b "$outdir" "$kver"

# Document the dependencies that the container tree cannot satisfy itself.
{
	echo "# modinfo depends of the out-of-tree build, and where each dep lives"
	for ko in "$dest"/*.ko; do
		deps=$(modinfo -F depends "$ko")
		echo "$(basename "$ko"): $deps"
		IFS=, read -ra d <<<"$deps"
		for m in "${d[@]}"; do
			[ -n "$m" ] || continue
			f=${m//_/-}
			if [ -e "$dest/$f.ko" ] || [ -e "$dest/$m.ko" ]; then
				echo "    $m: container tree"
			else
				echo "    $m: HOST tree only ($(modinfo -k "$kver" -n "$m" 2>/dev/null || echo '?'))"
			fi
		done
	done
} >"$outdir/oot-deps.txt"

rm -rf "$work"
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v d="$dest" 'BEGIN { printf "build-oot-nvme: built %s in %.1fs\n", d, b - a }' >&2
echo "$key" >"$outdir/.stamp"
