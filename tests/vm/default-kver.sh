#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# default-kver.sh: prints the kernel release the VM tests boot.
#
# $VM_KVER when set (any kernel installed in /boot and /lib/modules);
# otherwise the release Debian's linux-image-amd64 metapackage depends on
# (bookworm: linux-image-6.1.0-N-amd64), read from dpkg.  Not the newest
# /lib/modules entry: installing a second kernel (6.12 from
# bookworm-security, for tests/vm's other kernel) must not silently move
# every engineer's and CI's VM runs onto it.  Without the metapackage: the
# running kernel when its image is installed, else the only/newest one, with
# a note on stderr.  Fails (exit 1, a reason on stderr) when the chosen
# kernel is not installed.
set -euo pipefail

kver=${VM_KVER:-}
if [ -z "$kver" ]; then
	# Depends: "linux-image-6.1.0-57-amd64 (= 6.1.192-3)"
	dep=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null || :)
	kver=$(printf '%s\n' "$dep" | tr ',|' '\n' |
		sed -n 's/^ *linux-image-\([^ ]*\).*$/\1/p' | head -n1)
	if [ -z "$kver" ]; then
		if [ -r "/boot/vmlinuz-$(uname -r)" ]; then
			kver=$(uname -r)
		else
			kver=$(ls /lib/modules 2>/dev/null | sort -V | tail -n1)
		fi
		echo "default-kver: no linux-image-amd64 metapackage; using ${kver:-nothing} (set VM_KVER to choose)" >&2
	fi
fi
[ -n "$kver" ] || { echo "default-kver: no kernel in /lib/modules" >&2; exit 1; }
if [ ! -r "/boot/vmlinuz-$kver" ] || [ ! -d "/lib/modules/$kver" ]; then
	echo "default-kver: kernel $kver is not installed (/boot/vmlinuz-$kver, /lib/modules/$kver);" \
		"installed: $(ls /lib/modules 2>/dev/null | tr '\n' ' ')" >&2
	exit 1
fi
printf '%s\n' "$kver"
