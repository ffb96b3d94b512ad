# SPDX-License-Identifier: Apache-2.0
# The fake node the shell suites run the real daemon on
# (tests/daemon/*-fakeroot.sh through lib-daemon-fakeroot.sh,
# tests/fleet/make-documents.sh), in one place. Sourced. The caller defines
# fn() (the fake-node command on $root, a failure counted its own way) and
# $rel (the fake kernel release); $root is the node being built.

# Debian's in-tree stack loaded (t10_pi <- nvme_core <- nvme, nvme holding
# one namespace with a partition), an empty CRI-O store, /etc/nvme-swapguard.
fake_node_in_tree() {
  fn init $rel
  fn ko /lib/modules/$rel kernel/block/t10-pi.ko t10_pi - -
  fn ko /lib/modules/$rel kernel/drivers/nvme/host/nvme-core.ko nvme_core t10-pi -
  fn ko /lib/modules/$rel kernel/drivers/nvme/host/nvme.ko nvme nvme-core -
  fn modules-dep /lib/modules/$rel
  fn module t10_pi -1 nvme_core
  fn module nvme_core -1 nvme
  fn module nvme 0 -
  fn namespace 0 1 partitions=1
  mkdir -p "$root/run/containers/storage/overlay-containers" "$root/etc/nvme-swapguard"
}

# The same node shaped like Linux 6.12 (FIELD-NOTES section 10): nvme_core
# depends on drivers/nvme/common's nvme_auth (the host's, in-tree), t10_pi
# built in.
fake_node_in_tree_612() {
  fn init $rel
  fn ko /lib/modules/$rel kernel/drivers/nvme/common/nvme-auth.ko nvme_auth - -
  fn ko /lib/modules/$rel kernel/drivers/nvme/host/nvme-core.ko nvme_core nvme-auth -
  fn ko /lib/modules/$rel kernel/drivers/nvme/host/nvme.ko nvme nvme-core -
  fn modules-dep /lib/modules/$rel
  fn module nvme_auth -1 nvme_core
  fn module nvme_core -1 nvme
  fn module nvme 0 -
  fn namespace 0 1 partitions=1
  mkdir -p "$root/run/containers/storage/overlay-containers" "$root/etc/nvme-swapguard"
}

# NVIDIA's build for that node shipping its own nvme_auth (drivers/nvme/common
# built with it), out-of-tree. No mlx_compat here: whether it is the build's
# can only come from what the daemon recorded at load.
fake_node_nvidia_build_own_auth() {
  fn ko "$1" extra/mlnx-nvme/common/nvme-auth.ko nvme_auth - - fake_taint=OE
  fn ko "$1" extra/mlnx-nvme/host/nvme-core.ko nvme_core nvme-auth - fake_taint=OE
  fn ko "$1" extra/mlnx-nvme/host/nvme.ko nvme nvme-core - fake_taint=OE fake_exports=nvme_v1_register_nvfs_dma_ops
  fn modules-dep "$1"
}

# NVIDIA's NVMe build in a driver container's module tree ($1, a path on
# the node, /proc/<pid>/root/lib/modules/$rel): out-of-tree (taint OE),
# depending on nothing the host lacks, nvme exporting the GDS hooks (v1).
fake_node_nvidia_build() {
  fn ko "$1" extra/mlnx-nvme/host/nvme-core.ko nvme_core t10-pi - fake_taint=OE
  fn ko "$1" extra/mlnx-nvme/host/nvme.ko nvme nvme-core - fake_taint=OE fake_exports=nvme_v1_register_nvfs_dma_ops
  fn modules-dep "$1"
}
