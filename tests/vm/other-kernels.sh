#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# other-kernels.sh SPEC: the kernels, besides the default one
# (default-kver.sh), that meson registers the real-kernel core on, one
# release a line (meson option vm_kernels).
#   auto   every kernel installed with its image and modules (/boot/vmlinuz-R
#          and /lib/modules/R/modules.dep), sorted by version
#   none   none
#   R[,R]  those releases; one that is not installed is an error (a typo must
#          not quietly shrink what CI runs)
# Headers and sources are not required here: an --oot case on a kernel
# without them fails in build-oot-nvme.sh saying which is missing.
set -euo pipefail

spec=${1:-auto}
here=$(cd "$(dirname "$0")" && pwd)
default=$(VM_KVER='' "$here/default-kver.sh" 2>/dev/null || :)
installed() { [ -r "/boot/vmlinuz-$1" ] && [ -r "/lib/modules/$1/modules.dep" ]; }

case $spec in
none | '') exit 0 ;;
auto)
	for d in /lib/modules/*/; do
		r=$(basename "$d")
		if [ "$r" != "$default" ] && installed "$r"; then echo "$r"; fi
	done | sort -V
	;;
*)
	for r in ${spec//,/ }; do
		installed "$r" || { echo "other-kernels: vm_kernels names $r, which is not installed" >&2; exit 1; }
		[ "$r" = "$default" ] || echo "$r"
	done
	;;
esac
