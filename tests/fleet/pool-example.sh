#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The output shown in README.md ("Roll out to a pool"), reproducible: the
# plugin against the `oc` stand-in, on a four-node pool whose documents and
# journals the daemon wrote in the last `meson test --suite fleet` run
# (BUILD/tests/fleet/documents/), plus, when the vm suite has run, a node
# whose document and journal come from the VM case. Not a cluster: see README for what that
# leaves unverified.
#   tests/fleet/pool-example.sh BUILD [plugin arguments...]
set -euo pipefail
here=$(cd "${BASH_SOURCE[0]%/*}" && pwd)
build=${1:?usage: pool-example.sh BUILD [ARGS...]}; shift
docs=$(cd "$build" && pwd)/tests/fleet/documents
[ -e "$docs/swapped/status.json" ] || { echo "no documents in $docs: run meson test -C $build --suite fleet" >&2; exit 1; }
tmp=$(mktemp -d /tmp/sg-pool-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cluster=$tmp/cluster
. "$here/lib-cluster.sh"
# the daemon swapped; a data volume on NVMe keeps the second blocked; the
# third has no driver container yet; the fourth has not got the MachineConfig yet
cluster_node gpu-worker-0 "$(cat "$docs/swapped/boot_id")" worker; cluster_serve gpu-worker-0 swapped
cluster_node gpu-worker-1 "$(cat "$docs/blocked/boot_id")" worker; cluster_serve gpu-worker-1 blocked
cluster_node gpu-worker-2 "$(cat "$docs/idle/boot_id")" worker; cluster_serve gpu-worker-2 idle
cluster_node gpu-worker-3 "$(cat /proc/sys/kernel/random/uuid)" worker
# the real kernel's: the VM case's document and journald's JSON, when the vm
# suite has run (tests/fleet/vm-documents.sh); its NVIDIA stand-in is the
# kernel's own nvme sources built out of tree: no mlx_compat, no GDS hooks
vmdocs=$(cd "$build" && pwd)/tests/fleet/vm-documents
if [ -e "$vmdocs/swapped/status.json" ]; then
  docs=$vmdocs cluster_node gpu-worker-4 "$(cat "$vmdocs/swapped/boot_id")" worker
  docs=$vmdocs cluster_serve gpu-worker-4 swapped
fi
cluster_node master-0 "$(cat /proc/sys/kernel/random/uuid)" master
# a pool rolling out (Mode=), role gpu: three nodes observing that
# would swap, one whose container storage is on NVMe; README step 5
if [ -e "$docs/observe-swap/status.json" ]; then
  for n in 0 1 2; do
    cluster_node gpu-$n "$(cat "$docs/observe-swap/boot_id")" gpu; cluster_serve gpu-$n observe-swap
  done
  cluster_node gpu-3 "$(cat "$docs/observe-blocked/boot_id")" gpu; cluster_serve gpu-3 observe-blocked
fi
export OC_STANDIN_CLUSTER=$cluster PATH=$here:$PATH
exec "$here/../../plugin/kubectl-swapguard" "${@:-status}"
