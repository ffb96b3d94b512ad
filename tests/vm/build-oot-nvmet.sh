#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# build-oot-nvmet.sh OUTDIR [KVER]
#
# A test target for the NVMe over Fabrics cases, not a stand-in
# of anything NVIDIA ships: the kernel's own drivers/nvme/target nvmet and
# nvmet-tcp (sources from Debian's linux-source-MAJOR.MINOR), built out of
# tree without CONFIG_NVME_TARGET_PASSTHRU. Debian's 6.12 (and RHEL 9)
# build nvmet with passthru, which links drivers/nvme/host's core: an
# in-kernel target then holds nvme_core and no swap of the host stack can
# unload it (tests/vm/lib-nvmet.sh, nvmet_needs_nvme_core; FIELD-NOTES
# section 11). Without passthru nvmet needs only configfs and, on 6.12,
# drivers/nvme/common's nvme_auth and nvme_keyring: modules the host stack
# shares, which a swap leaves loaded.
#
#   OUTDIR/nvmet.ko OUTDIR/nvmet-tcp.ko OUTDIR/nvmet-rdma.ko   (KVER's vermagic;
#   nvmet-rdma only where it builds against the headers' RDMA core)
#
# passthru is switched off in the one header every object includes
# (nvmet.h: its uses are all under #ifdef CONFIG_NVME_TARGET_PASSTHRU);
# kbuild's object list gets CONFIG_NVME_TARGET_PASSTHRU=n. Cached
# (OUTDIR/.stamp) while the sources, headers and this script are unchanged.
set -euo pipefail
die() { echo "build-oot-nvmet: $*" >&2; exit 1; }
[ $# -ge 1 ] || die "usage: $0 OUTDIR [KVER]"
outdir=$1
kver=${2:-$("$(dirname "$0")/default-kver.sh")}
kmm=$(printf '%s\n' "$kver" | sed -n 's/^\([0-9]*\.[0-9]*\).*$/\1/p')
src_tar=/usr/src/linux-source-$kmm.tar.xz
hdrs=/usr/src/linux-headers-$kver
[ -r "$src_tar" ] || die "no kernel source tarball $src_tar"
[ -d "$hdrs" ] || die "no kernel headers in $hdrs"
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
key=$( (stat -c '%n %s %Y' "$src_tar" "$hdrs/Module.symvers"; sha256sum "$0" | cut -d' ' -f1; echo "$kver") )
exec 9>"$outdir/.lock"
flock 9
[ -f "$outdir/.stamp" ] && [ "$(cat "$outdir/.stamp")" = "$key" ] && exit 0
rm -f "$outdir/.stamp"
work=$outdir/build
rm -rf "$work"
mkdir -p "$work"
tar -C "$work" -xJf "$src_tar" --strip-components=1 --wildcards 'linux-source-*/drivers/nvme/target/*'
dir=$work/drivers/nvme/target
sed -i 's|^#define _NVMET_H$|#define _NVMET_H\n/* nvme-swapguard test target (build-oot-nvmet.sh): no passthru, no nvme_core */\n#undef CONFIG_NVME_TARGET_PASSTHRU|' "$dir/nvmet.h"
grep -q '^#undef CONFIG_NVME_TARGET_PASSTHRU' "$dir/nvmet.h" || die "nvmet.h: no _NVMET_H guard to patch"
build() {
	make -C "$hdrs" M="$dir" CONFIG_NVME_TARGET=m CONFIG_NVME_TARGET_TCP=m CONFIG_NVME_TARGET_PASSTHRU=n \
		CONFIG_NVME_TARGET_LOOP=n CONFIG_NVME_TARGET_FC=n CONFIG_NVME_TARGET_FCLOOP=n \
		CONFIG_NVME_TARGET_DEBUGFS=n "$@" -j"$(nproc)" modules >>"$outdir/build.log" 2>&1
}
: >"$outdir/build.log"
rm -f "$outdir/nvmet-rdma.ko"
if ! build CONFIG_NVME_TARGET_RDMA=m; then
	echo "build-oot-nvmet: nvmet-rdma does not build here, without it" >>"$outdir/build.log"
	build CONFIG_NVME_TARGET_RDMA=n || { tail -n 30 "$outdir/build.log" >&2; die "build failed, see $outdir/build.log"; }
fi
cp "$dir/nvmet.ko" "$dir/nvmet-tcp.ko" "$outdir/"
[ -f "$dir/nvmet-rdma.ko" ] && cp "$dir/nvmet-rdma.ko" "$outdir/"
modinfo -F depends "$outdir/nvmet.ko" | tr , '\n' | grep -qx nvme-core && die "nvmet.ko still depends on nvme-core"
rm -rf "$work"
echo "$key" >"$outdir/.stamp"
echo "build-oot-nvmet: built $outdir/{nvmet,nvmet-tcp}.ko for $kver (depends: $(modinfo -F depends "$outdir/nvmet.ko"))" >&2
