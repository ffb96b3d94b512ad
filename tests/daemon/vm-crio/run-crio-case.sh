#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# run-crio-case.sh [run-vm.sh options] -- CASE.sh
#
# Host side of the real-CRI-O cases (suite vm): unpacks upstream CRI-O 1.27.8,
# its pinns and crictl 1.28.0 from the project's shared directory into
# <build>/crio-bin (install.sh checks their sha256), then boots CASE.sh with
# tests/vm/run-vm.sh. The guest sees the host's / read-only, so it finds them
# at $VM_BUILD_ROOT/crio-bin; lib-crio.sh does the rest in the guest.
#
# Debian 12 does not package CRI-O. The binaries live beside the clone, in
# <clone>/../shared/crio (CI copies shared/ there), or in $SWAPGUARD_CRIO_DIR.
# Without them the case is skipped (77), saying how to get them.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
build=${VM_BUILD_ROOT:-${MESON_BUILD_ROOT:-$src/build}}
shared=${SWAPGUARD_CRIO_DIR:-$src/../shared/crio}

skip() {
	echo "SKIP: $*"
	exit 77
}

if [ ! -x "$shared/install.sh" ]; then
	skip "no CRI-O: $shared/install.sh does not exist. These cases start the" \
		"driver pod through upstream CRI-O 1.27.8 (the version in OpenShift 4.14)" \
		"and crictl 1.28.0, which Debian 12 does not package. Put the project's" \
		"shared/ directory beside the clone (<clone>/../shared/crio, as CI does)" \
		"or set SWAPGUARD_CRIO_DIR to a directory holding install.sh," \
		"crio-1.27.8.xz, pinns-1.27.8.xz and crictl-1.28.0.xz (built from the" \
		"cri-o/cri-o v1.27.8 and kubernetes-sigs/cri-tools v1.28.0 sources, see" \
		"its README.md); then run tests/install-deps.sh (conmon, crun, runc, skopeo)."
fi
for tool in conmon crun runc skopeo; do
	command -v "$tool" >/dev/null || skip "no $tool on the host (the guest uses the host's): run tests/install-deps.sh"
done

# Unpack once per change of the shared files (their mtimes and sizes), under
# a lock: meson runs cases in parallel.
bin=$build/crio-bin
mkdir -p "$build"
stamp=$(stat -c '%n %s %Y' "$shared"/install.sh "$shared"/*.xz | sha256sum | cut -c1-16)
(
	flock 9
	if [ "$(cat "$bin/.stamp" 2>/dev/null)" != "$stamp" ]; then
		rm -rf "$bin.tmp"
		"$shared/install.sh" "$bin.tmp" >&2
		echo "$stamp" >"$bin.tmp/.stamp"
		rm -rf "$bin"
		mv "$bin.tmp" "$bin"
	fi
) 9>"$build/crio-bin.lock"

exec bash "$src/tests/vm/run-vm.sh" "$@"
