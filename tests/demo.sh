#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
#   $(command -v sudo) bash tests/demo.sh
#
# The swap, end to end, on a real kernel, for someone who just cloned the
# repository on a Debian 12 machine: installs what is missing
# (tests/install-deps.sh), builds (meson, in ./build), then boots Debian's
# kernel under QEMU with an emulated NVMe drive, systemd, udevd, journald and
# a D-Bus system bus, installs nvme-swapguard as its shipped unit, and plays
# the current-image case (tests/daemon/vm/daemon-current-image.sh --demo):
# a simulated NVIDIA driver container starts, the daemon unloads the in-tree
# NVMe stack while the container "compiles", the container's `openibd
# restart` loads mlx_compat, the ready file appears, the daemon loads the
# container's build from /proc/<pid>/root (the stand-in for NVIDIA's: the
# kernel's own nvme sources built out of tree with NVIDIA's shape, every
# module depending on mlx_compat, nvme exporting the GDS hooks, RPM layout;
# tests/vm/build-oot-nvme.sh), reports it as NVIDIA's with the GDS hooks
# present (v1), and the drive comes back on it. Then the daemon's journal,
# `nvme-swapguard-kmod status` and the container's own log.
#
# About a minute once built; the first run also builds the project and the
# stand-in driver (a few minutes). Environment: DEMO_BUILD (build dir,
# default build), DEMO_RAW=1 (the VM's whole console, unfiltered).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${DEMO_BUILD:-build}
cd "$repo"

bold=$(tput bold 2>/dev/null || :) plain=$(tput sgr0 2>/dev/null || :)
t_start=$SECONDS
phase() { printf '\n%s=== %s%s\n' "$bold" "$*" "$plain"; }
elapsed() { printf '    (%d s)\n' $((SECONDS - ${1:-$t_start})); }

phase "1/3 Packages (tests/install-deps.sh)"
t=$SECONDS
bash tests/install-deps.sh
elapsed $t

phase "2/3 Build (meson, in $build/)"
t=$SECONDS
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" >"${TMPDIR:-/tmp}/nvme-swapguard-demo-setup.log" 2>&1 || {
		cat "${TMPDIR:-/tmp}/nvme-swapguard-demo-setup.log"; echo "demo: meson setup failed"; exit 1; }
fi
log=${TMPDIR:-/tmp}/nvme-swapguard-demo-build.log
if meson compile -C "$build" >"$log" 2>&1; then
	tail -n 1 "$log"
else
	tail -n 40 "$log"
	echo "demo: the build failed (whole log: $log)"
	exit 1
fi
elapsed $t

phase "3/3 The swap on a real kernel (Linux $(tests/vm/default-kver.sh) under QEMU)"
cat <<'TEXT'
    The VM gets one emulated NVMe drive, on the in-tree nvme driver at boot.
    The stand-in for NVIDIA's driver container: a CRI-O store entry with
    the real annotations and environment (mofed-container, namespace
    nvidia-network-operator, ENABLE_NFSRDMA=true), its process in
    crio-<id>.scope, chrooted into its own root, doing to modules what
    NVIDIA's entrypoint and its `openibd restart` do. Its build has NVIDIA's
    shape: /lib/modules/<release>/extra/mlnx-nvme/host/*.ko, every one
    depending on extra/mlnx-ofa_kernel/compat/mlx_compat.ko, nvme.ko
    exporting nvme_v1_register_nvfs_dma_ops (the GDS hooks).
    (first run: building that stand-in driver takes a minute or two)
TEXT
t=$SECONDS
# The guest's console: keep the test's own lines (journald prefixes them
# with "[uptime] bash[pid]: "), drop boot noise.
show() {
	if [ "${DEMO_RAW:-0}" = 1 ]; then
		cat
	else
		awk '{ if (!sub(/^\[ *[0-9.]+\] bash\[[0-9]+\]: /, "")) next }
			/^VM-BOOTED/ { sub(/^VM-BOOTED uptime=/, ""); sub(/s .*/, "");
				print "    (guest up after " $0 " s of emulated boot)"; fflush(); next }
			/^VM-/ { next }
			{ print; fflush() }'
	fi
}
# With CRI-O beside the clone (../shared/crio, see
# tests/daemon/vm-crio/run-crio-case.sh) the driver pod is started through a
# real CRI-O 1.27.8 and crictl, as kubelet starts it; otherwise its footprint
# is imitated (tests/daemon/vm/lib-swapguard.sh).
demo_run=(bash tests/vm/run-vm.sh -b "$build" -t 400 -l plain --oot -m systemd --
	tests/daemon/vm/daemon-current-image.sh --demo)
if [ -x "${SWAPGUARD_CRIO_DIR:-$repo/../shared/crio}/install.sh" ]; then
	echo "    CRI-O found: the driver pod is started through CRI-O 1.27.8 (crictl runp/create/start)."
	demo_run=(env VM_BUILD_ROOT="$(realpath "$build")" bash tests/daemon/vm-crio/run-crio-case.sh
		-t 500 -l plain --oot -m systemd --mem 1024 -- tests/daemon/vm-crio/crio-first-swap.sh --demo)
fi
set +e
"${demo_run[@]}" | show
rc=${PIPESTATUS[0]}
set -e
elapsed $t
if [ "$rc" = 0 ]; then
	printf '\n%sDemo done: the swap happened on a real kernel (%d s in all).%s\n' "$bold" $((SECONDS - t_start)) "$plain"
	echo 'Next: README.md (install, states, configuration), $(command -v sudo) bash tests/run-tests.sh (every test).'
else
	printf '\n%sDemo failed (exit %s).%s The VM run directory above keeps its console and kernel logs;\n' "$bold" "$rc" "$plain"
	echo "DEMO_RAW=1 shows the VM's whole console."
fi
exit "$rc"
