#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs everything nvme-swapguard needs to build, test and run its demo on
# Debian 12: the libraries at their Debian levels, Criterion, and the pieces of
# a real kernel to boot under QEMU (Debian's kernel images, 6.1 and 6.12,
# their headers and sources for the out-of-tree nvme build standing in for
# NVIDIA's).
# Idempotent: packages already present are skipped quickly.
set -euo pipefail

packages=(
  # build
  gcc make xz-utils clang lld llvm meson ninja-build pkg-config binutils
  libkmod-dev libnvme-dev libmount-dev libsystemd-dev libudev-dev
  libjson-c-dev libssl-dev libinih-dev
  # tests
  libcriterion-dev valgrind python3 python3-yaml ignition zopfli systemd kmod util-linux
  # the real kernel under QEMU, with its headers and sources (out-of-tree nvme build)
  qemu-system-x86 linux-image-amd64 linux-headers-amd64 linux-source-6.1
  busybox-static cpio nvme-cli lvm2 dmsetup xfsprogs e2fsprogs
  # the second kernel the real-kernel core runs on (tests/meson.build,
  # option vm_kernels): Debian 12's 6.12 from bookworm-security, which has
  # RHEL 9's shapes (.ko.xz modules, nvme_core -> nvme_auth, t10_pi built
  # in); the metapackages follow its security updates. Its kbuild needs
  # pahole (dwarves) for module BTF; its bzImage is zstd
  # (tests/vm/extract-vmlinux.sh). The VM cases' default stays the kernel
  # linux-image-amd64 depends on (tests/vm/default-kver.sh).
  linux-image-6.12-amd64 linux-headers-6.12-amd64 linux-source-6.12 dwarves zstd
  # real CRI-O in the VM (tests/daemon/vm-crio): crio and crictl come from
  # ../shared/crio (Debian 12 has no cri-o); conmon, the OCI runtimes, the CNI
  # plugins, crio's shared libraries, and skopeo to copy a locally built image
  # into containers/storage without a registry
  conmon crun runc containernetworking-plugins libseccomp2 libsqlite3-0 skopeo
  # the VM's system bus is dbus-broker, as on RHCOS (the unit's DynamicUser=
  # cannot authenticate to Debian's dbus-daemon; tests/daemon/vm/lib-swapguard.sh)
  dbus-broker libnss-systemd
  # man pages
  scdoc man-db groff-base
  # the metrics file served by a real node-exporter (textfile collector),
  # scraped with curl, checked with promtool (tests/monitoring)
  prometheus prometheus-node-exporter curl
  # the daemon's system calls counted per step (tests/daemon/daemon-step-fakeroot.sh)
  strace
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run as root (or with sudo) to install them" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
