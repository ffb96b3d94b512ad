#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# build-oot-nvme.sh [--shape link|own] OUTDIR [KVER]
#
# The stand-in for NVIDIA's mlnx-nvme build, with its shape (facts in
# ../shared/FIELD-NOTES.md sections 2, 8 and 10, and tests/vm/standin/*):
# the kernel's own drivers/nvme/host (sources from Debian's
# linux-source-MAJOR.MINOR package matching KVER: 6.1, 6.12) built out of
# tree against linux-headers-KVER, plus
#
#  - a small mlx_compat module exporting mlx_backport_dependency_symbol
#    (standin/compat/main.c, after mlnx-ofa_kernel compat/main.c), and every
#    stack module compiled with `-include compat-2.6.h` (standin/include/,
#    after mlnx-ofa_kernel include/linux/compat-2.6.h), so each one
#    references that symbol: `modinfo -F depends` shows mlx_compat and
#    /sys/module/mlx_compat/holders/ lists every loaded one;
#  - the GPUDirect Storage exports (standin/nvme-host/nvfs-hooks.c, after
#    mlnx-nvme's nvfs-dma.c / nvfs-rdma.c, linked in only with
#    CONFIG_GPU_DIRECT_STORAGE=y as mlnx-nvme's drivers/nvme/host/Makefile
#    does): nvme.ko exports nvme_v1_register_nvfs_dma_ops and
#    nvme_v1_unregister_nvfs_dma_ops, nvme-rdma.ko nvme_rdma_v1_*;
#  - a second variant whose nvme.ko exports the v2 names (DOCA 26.01+,
#    gds-nvidia-fs #87); nvme-rdma keeps nvme_rdma_v1_* there (no public
#    source read here names an rdma v2 export);
#  - the RPM layout of a RHEL/RHCOS driver container, each variant a
#    container root of its own, depmod run inside the tree:
#
#   OUTDIR/v1/lib/modules/KVER/extra/mlnx-nvme/host/{nvme,nvme-core,...}.ko
#   OUTDIR/v1/lib/modules/KVER/extra/mlnx-ofa_kernel/compat/mlx_compat.ko
#   OUTDIR/v1/lib/modules/KVER/modules.dep      (depmod -b OUTDIR/v1 KVER)
#   OUTDIR/v2/...                               (the same, nvme_v2_* exports)
#   OUTDIR/v1/oot-deps.txt                      (where each dependency lives)
#   OUTDIR/nvidia-fs/{v1,v2}/nvidia-fs.ko        (standin/nvidia-fs: GDS's
#                                                module, asking for nvme_v1_* or
#                                                nvme_v2_* by name, no link-time
#                                                dependency on nvme)
#
# The modules load with taint "OE" (out-of-tree, unsigned), as NVIDIA's do.
#
# Two shapes for the modules the nvme stack shares with others (upstream
# 6.7+, Debian's 6.12, RHEL 9.2+: drivers/nvme/common's nvme_auth, and with
# TLS nvme_keyring; nvme-core needs nvme_auth, nvme-fabrics/nvme-tcp
# nvme_keyring).  Which one NVIDIA's mlnx-nvme does on a given kernel is not
# known here (FIELD-NOTES section 10), so both are built:
#   --shape link (env VM_OOT_SHAPE, default): only drivers/nvme/host, so
#       nvme-core.ko links the KERNEL's nvme_auth (in the host tree, like
#       t10_pi below); the container tree has no nvme-auth.ko;
#   --shape own: drivers/nvme/common built with it (one kbuild pass over
#       drivers/nvme, so host's references resolve to common's exports), its
#       modules installed as extra/mlnx-nvme/common/*.ko: mlnx-nvme's RPM
#       installs each built module under extra/mlnx-nvme/<its source subdir>
#       (mlnx-ofa_kernel drivers/nvme/mlnx-nvme_spec_, %install: mod_path).
# A kernel without modular nvme_auth/nvme_keyring (Debian's 6.1:
# CONFIG_NVME_AUTH unset) has one shape only; `own` then builds `link` and
# says so.  Give each shape its own OUTDIR (run-vm.sh: oot-nvme-KVER and
# oot-nvme-KVER-own): the stamp names the shape, so a shared OUTDIR would
# rebuild at every switch.
#
# Cross-tree dependencies (`modinfo -F depends` against the trees; see
# oot-deps.txt): nvme-core depends on t10-pi (t10_pi), which lives only in
# the host tree (kernel/block/t10-pi.ko, itself needing crc64-rocksoft,
# crc-t10dif, crc64, crct10dif_common); nvme-rdma also needs ib_core and
# rdma_cm from the host tree. depmod -b OUTDIR/v1 silently drops those
# edges, so the tree's modules.dep lists only the intra-tree ones (nvme ->
# nvme-core, mlx_compat): a loader resolves t10_pi & co. from the HOST tree
# (/lib/modules/KVER), as on a real node; mlx_compat comes from the
# container's tree, loaded by its `openibd restart` before the ready file.
#
# Cached: the result is reused as long as the source tarball, the headers,
# the kernel config, this script and standin/ are unchanged (OUTDIR/.stamp).
# Both shapes of one kernel build in one kbuild tree beside OUTDIR
# (oot-nvme-work-KVER, kept): kbuild always runs over drivers/nvme, whose
# Makefile names host/ alone (link) or common/ and host/ (own), so the host
# objects' command lines are the same in both and the second shape compiles
# only common/ and links again (a 6.12 shape took 84-105 s on its own).
set -euo pipefail

die() { echo "build-oot-nvme: $*" >&2; exit 1; }

shape=${VM_OOT_SHAPE:-link}
if [ "${1:-}" = --shape ]; then
	shape=${2:-}
	shift 2 || die "usage: $0 [--shape link|own] OUTDIR [KVER]"
fi
case $shape in link | own) ;; *) die "unknown shape '$shape' (link or own)" ;; esac
[ $# -ge 1 ] || die "usage: $0 [--shape link|own] OUTDIR [KVER]"
outdir=$1
kver=${2:-}
if [ -z "$kver" ]; then
	# The guest kernel, not the host's `uname -r` (default-kver.sh).
	kver=$("$(dirname "$0")/default-kver.sh")
fi
# Debian's source package is per major.minor: 6.1.0-57-amd64 -> 6.1,
# 6.12.118+deb12-amd64 -> 6.12.
kmm=$(printf '%s\n' "$kver" | sed -n 's/^\([0-9]*\.[0-9]*\).*$/\1/p')
src_tar=${LINUX_SOURCE_TAR:-/usr/src/linux-source-$kmm.tar.xz}
hdrs=/usr/src/linux-headers-$kver
config=/boot/config-$kver

[ -r "$src_tar" ] || die "no kernel source tarball $src_tar"
[ -d "$hdrs" ] || die "no kernel headers in $hdrs"
[ -r "$config" ] || die "no kernel config $config"
# The modules of drivers/nvme/common this kernel builds (=m): what shape
# `own` ships.
common_mods=$({ grep -E '^CONFIG_NVME_(AUTH|KEYRING)=m$' "$config" || :; } |
	sed 's/^CONFIG_NVME_\([A-Z]*\)=m$/nvme-\1/' | tr '[:upper:]' '[:lower:]' | tr '\n' ' ')
# The fabrics modules this kernel builds (=m), which the package must ship.
fabrics_mods=$({ grep -E '^CONFIG_NVME_(FABRICS|TCP)=m$' "$config" || :; } |
	sed 's/^CONFIG_NVME_\([A-Z]*\)=m$/nvme-\1/' | tr '[:upper:]' '[:lower:]' | tr '\n' ' ')
if [ "$shape" = own ] && [ -z "$common_mods" ]; then
	echo "build-oot-nvme: $kver has no modular nvme_auth/nvme_keyring; shape 'own' is shape 'link' here" >&2
	shape='link'
fi

mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)

standin=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/standin
[ -f "$standin/compat/main.c" ] || die "no $standin/compat/main.c"

stamp_key() {
	stat -c '%n %s %Y' "$src_tar" "$config" "$hdrs/Module.symvers" \
		"$hdrs/include/config/auto.conf"
	sha256sum "$0" | cut -d' ' -f1
	(cd "$standin" && find . -type f | sort | xargs sha256sum)
	echo "$kver shape=$shape"
}
key=$(stamp_key)

exec 9>"$outdir/.lock"
flock 9
if [ -f "$outdir/.stamp" ] && [ "$(cat "$outdir/.stamp")" = "$key" ]; then
	exit 0
fi
rm -f "$outdir/.stamp"

t0=$(date +%s.%N)
rm -rf "${outdir:?}/build" "${outdir:?}/lib" "${outdir:?}/v1" "${outdir:?}/v2" "${outdir:?}/nvidia-fs"
log=$outdir/build.log
: >"$log"
# The kbuild tree both shapes share (locked after OUTDIR: one order, no
# deadlock), extracted again when anything but the shape changed.
work=${OOT_WORK_DIR:-$(dirname "$outdir")/oot-nvme-work-$kver}
exec 8>"$work.lock"
flock 8
work_key=$(stamp_key | sed '$d')
if [ ! -f "$work/.stamp" ] || [ "$(cat "$work/.stamp")" != "$work_key" ]; then
	rm -rf "${work:?}"
	mkdir -p "$work"
	fresh_tree=1
else
	fresh_tree=0
fi
rm -f "$work/.stamp" # written again when this build ends well

# --- mlx_compat (mlnx-ofa_kernel compat/) -------------------------------------
mkdir -p "$work/compat"
[ $fresh_tree = 0 ] || cp "$standin/compat/main.c" "$standin/compat/Kbuild" "$work/compat/"
make -C "$hdrs" M="$work/compat" -j"$(nproc)" modules >>"$log" 2>&1 ||
	{ tail -n 30 "$log" >&2; die "mlx_compat build failed, see $log"; }

# --- mlnx-nvme: the kernel's drivers/nvme/host --------------------------------
# Only the nvme host (and common, for auth on newer kernels) directories.
build_dir=$work/drivers/nvme/host
make_dir=$work/drivers/nvme
if [ $fresh_tree = 1 ]; then
tar -C "$work" -xJf "$src_tar" --strip-components=1 --wildcards \
	'linux-source-*/drivers/nvme/host/*' 'linux-source-*/drivers/nvme/common/*' \
	2>/dev/null || tar -C "$work" -xJf "$src_tar" --strip-components=1 \
	--wildcards 'linux-source-*/drivers/nvme/host/*'
[ -f "$build_dir/core.c" ] || die "drivers/nvme/host not in $src_tar"
# Every object of the package is compiled with compat-2.6.h.
[ ! -f "$work/drivers/nvme/common/Makefile" ] ||
	echo 'ccflags-y += -include $(SWAPGUARD_COMPAT_H)' >>"$work/drivers/nvme/common/Makefile"

# NVIDIA's additions, as mlnx-nvme's drivers/nvme/host/Makefile links them
# (nvme-y += nvfs-dma.o, nvme-rdma-y += nvfs-rdma.o under
# CONFIG_GPU_DIRECT_STORAGE=y), and the compat header every object of the
# package is compiled with.
cp "$standin/nvme-host/nvfs-hooks.c" "$build_dir/nvfs-dma.c"
cp "$standin/nvme-host/nvfs-hooks.c" "$build_dir/nvfs-rdma.c"
cat >>"$build_dir/Makefile" <<'MAKE'

# --- nvme-swapguard stand-in (tests/vm/build-oot-nvme.sh): NVIDIA's shape ---
ccflags-y += -include $(SWAPGUARD_COMPAT_H)
ifeq ($(CONFIG_GPU_DIRECT_STORAGE),y)
nvme-y += nvfs-dma.o
nvme-rdma-y += nvfs-rdma.o
CFLAGS_nvfs-dma.o += -DNVFS_MODULE_PREFIX=$(SWAPGUARD_NVFS_NVME)
CFLAGS_nvfs-rdma.o += -DNVFS_MODULE_PREFIX=nvme_rdma_v1
endif
MAKE
fi
# kbuild runs over drivers/nvme (never target/): host/ alone (link), or
# common/ and host/ as the kernel's drivers/nvme/Makefile descends them (own).
if [ "$shape" = own ]; then
	[ -f "$work/drivers/nvme/common/Makefile" ] || die "drivers/nvme/common not in $src_tar"
	printf '%s\n' '# nvme-swapguard stand-in, shape own (build-oot-nvme.sh)' 'obj-m += common/ host/' >"$make_dir/Makefile"
else
	printf '%s\n' '# nvme-swapguard stand-in, shape link (build-oot-nvme.sh)' 'obj-m += host/' >"$make_dir/Makefile"
fi

# Take the CONFIG_NVME_* choices of the kernel we build for, so the module set
# and the code paths (multipath, hwmon) match the in-tree build.  autoconf.h in
# the headers already carries the same values for the preprocessor; the make
# variables only select which objects kbuild builds.
mapfile -t cfg < <(grep -E '^CONFIG_(BLK_DEV_NVME|NVME_[A-Z_]+)=' "$config" |
	grep -v '^CONFIG_NVME_TARGET')
# nvme-apple is arm64-only.
cfg+=(CONFIG_NVME_APPLE=n CONFIG_GPU_DIRECT_STORAGE=y)
# mlx_backport_dependency_symbol resolves against mlx_compat's exports, so
# modpost records mlx_compat in each module's "depends".
cfg+=(KBUILD_EXTRA_SYMBOLS="$work/compat/Module.symvers"
	SWAPGUARD_COMPAT_H="$standin/include/linux/compat-2.6.h")

# nvme_make GENERATION: (re)build; only nvfs-dma.o and nvme.ko change between
# the v1 and v2 generations (kbuild rebuilds what its command line changed).
nvme_make() {
	local gen=$1
	if ! make -C "$hdrs" M="$make_dir" "${cfg[@]}" SWAPGUARD_NVFS_NVME="nvme_$gen" \
		-j"$(nproc)" modules >>"$log" 2>&1; then
		# nvme-rdma needs the RDMA headers from the full source tree (only
		# partly in linux-headers); build it when it compiles.
		grep -q 'rdma' "$log" || { tail -n 30 "$log" >&2; die "build failed, see $log"; }
		echo "build-oot-nvme: nvme-rdma failed to build, retrying without it" >>"$log"
		cfg+=(CONFIG_NVME_RDMA=n)
		make -C "$hdrs" M="$make_dir" "${cfg[@]}" SWAPGUARD_NVFS_NVME="nvme_$gen" \
			-j"$(nproc)" modules >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "build failed, see $log"; }
	fi
}

# layout ROOT: the RPM layout of a driver container root, depmod run inside.
layout() {
	local root=$1 tree=$1/lib/modules/$kver f
	mkdir -p "$tree/extra/mlnx-nvme/host" "$tree/extra/mlnx-ofa_kernel/compat"
	cp "$build_dir"/*.ko "$tree/extra/mlnx-nvme/host/"
	if [ "$shape" = own ]; then
		mkdir -p "$tree/extra/mlnx-nvme/common"
		cp "$work/drivers/nvme/common"/*.ko "$tree/extra/mlnx-nvme/common/"
	fi
	cp "$work/compat/mlx_compat.ko" "$tree/extra/mlnx-ofa_kernel/compat/"
	# A real container tree carries the kernel's modules.builtin*; give
	# depmod those and a modules.order so it runs quietly.
	for f in modules.builtin modules.builtin.modinfo; do
		cp "/lib/modules/$kver/$f" "$tree/" 2>/dev/null || :
	done
	(cd "$tree" && ls extra/mlnx-ofa_kernel/compat/*.ko extra/mlnx-nvme/*/*.ko) >"$tree/modules.order"
	depmod -b "$root" "$kver"
}

# check_shape ROOT GENERATION: what NVIDIA's build shows, or no cache entry.
check_shape() {
	local tree=$1/lib/modules/$kver ko m dep
	for ko in "$tree"/extra/mlnx-nvme/*/*.ko; do
		# compat-2.6.h hooks module_init(): a module without an init
		# function (6.12's nvme-auth, a library) has no mlx_compat
		# dependency in NVIDIA's build either.
		nm "$ko" | grep ' T init_module$' >/dev/null || continue
		# (grep without -q: an early exit would fail the pipe, pipefail)
		modinfo -F depends "$ko" | tr , '\n' | grep -x mlx_compat >/dev/null ||
			die "$(basename "$ko") does not depend on mlx_compat"
	done
	# The fabrics transports the kernel builds are in the package too
	# (mlnx-nvme ships nvme-fabrics, nvme-tcp, nvme-rdma beside nvme-core;
	# a node's NVMe/TCP connections come back on them).
	for m in $fabrics_mods; do
		[ -f "$tree/extra/mlnx-nvme/host/$m.ko" ] || die "no host/$m.ko (CONFIG of $kver builds it)"
	done
	nm "$tree/extra/mlnx-nvme/host/nvme.ko" | grep " __ksymtab_nvme_$2_register_nvfs_dma_ops$" >/dev/null ||
		die "nvme.ko does not export nvme_$2_register_nvfs_dma_ops"
	# The shape, as the tree's modules.dep shows it: nvme-core's nvme-auth
	# edge inside the tree (own) or absent from it (link: the host's).
	dep=$(grep '^extra/mlnx-nvme/host/nvme-core.ko:' "$tree/modules.dep" || :)
	for m in $common_mods; do
		if [ "$shape" = own ]; then
			[ -f "$tree/extra/mlnx-nvme/common/$m.ko" ] || die "shape own: no common/$m.ko"
		else
			[ -z "$(find "$tree" -name "$m.ko*")" ] || die "shape link: the tree ships $m.ko"
		fi
	done
	case $common_mods in *nvme-auth*)
		modinfo -F depends "$tree/extra/mlnx-nvme/host/nvme-core.ko" | tr , '\n' |
			tr - _ | grep -x nvme_auth >/dev/null || die "nvme-core.ko does not depend on nvme_auth"
		if [ "$shape" = own ]; then
			case $dep in *extra/mlnx-nvme/common/nvme-auth.ko*) ;;
			*) die "shape own: modules.dep of nvme-core has no in-tree nvme-auth ($dep)" ;; esac
		else
			case $dep in *nvme-auth*) die "shape link: modules.dep resolves nvme-auth in the tree ($dep)" ;; esac
		fi ;;
	esac
}

nvme_make v1
layout "$outdir/v1"
check_shape "$outdir/v1" v1
nvme_make v2
layout "$outdir/v2"
check_shape "$outdir/v2" v2

# --- nvidia-fs (GPU Operator's nvidia-fs-ctr builds it): one per generation ---
for gen in v1 v2; do
	mkdir -p "$work/nvidia-fs-$gen" "$outdir/nvidia-fs/$gen"
	cp "$standin/nvidia-fs/nvfs-standin.c" "$standin/nvidia-fs/Kbuild" "$work/nvidia-fs-$gen/"
	make -C "$hdrs" M="$work/nvidia-fs-$gen" ccflags-y="-DNVFS_NVME_PREFIX=nvme_$gen" \
		-j"$(nproc)" modules >>"$log" 2>&1 ||
		{ tail -n 30 "$log" >&2; die "nvidia-fs stand-in ($gen) build failed, see $log"; }
	cp "$work/nvidia-fs-$gen/nvidia-fs.ko" "$outdir/nvidia-fs/$gen/"
	# What the daemon reads from the file: the hook name as a string, and no
	# link-time dependency on nvme (__symbol_get, as nvidia-fs does).
	grep -a "nvme_${gen}_register_nvfs_dma_ops" "$outdir/nvidia-fs/$gen/nvidia-fs.ko" >/dev/null ||
		die "nvidia-fs ($gen) does not name nvme_${gen}_register_nvfs_dma_ops"
	[ -z "$(modinfo -F depends "$outdir/nvidia-fs/$gen/nvidia-fs.ko")" ] ||
		die "nvidia-fs ($gen) has a link-time dependency"
done

# Document the dependencies that the container tree cannot satisfy itself.
dest=$outdir/v1/lib/modules/$kver/extra
{
	echo "# modinfo depends of the out-of-tree build, and where each dep lives"
	echo "# shape: $shape (drivers/nvme/common modules of $kver: ${common_mods:-none})"
	for ko in "$dest"/mlnx-nvme/*/*.ko "$dest"/mlnx-ofa_kernel/compat/*.ko; do
		deps=$(modinfo -F depends "$ko")
		echo "$(basename "$ko"): $deps"
		IFS=, read -ra d <<<"$deps"
		for m in "${d[@]}"; do
			[ -n "$m" ] || continue
			f=${m//_/-}
			if [ -n "$(find "$dest" -name "$f.ko" -o -name "$m.ko" | head -n1)" ]; then
				echo "    $m: container tree"
			else
				echo "    $m: HOST tree only ($(modinfo -k "$kver" -n "$m" 2>/dev/null || echo '?'))"
			fi
		done
	done
	echo "# exports of the GDS hooks (v1 tree; v2 tree: nvme_v2_*)"
	for ko in "$dest"/mlnx-nvme/host/*.ko; do
		nm "$ko" | sed -n "s/.* __ksymtab_\(.*_nvfs_dma_ops\)$/$(basename "$ko"): \1/p"
	done
} >"$outdir/v1/oot-deps.txt"

echo "$work_key" >"$work/.stamp"
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v d="$outdir" 'BEGIN { printf "build-oot-nvme: built %s/{v1,v2,nvidia-fs} in %.1fs\n", d, b - a }' >&2
echo "$key" >"$outdir/.stamp"
