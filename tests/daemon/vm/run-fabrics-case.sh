#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# run-fabrics-case.sh RUN-VM-ARGS...: tests/vm/run-vm.sh for a case with an
# NVMe/TCP target in the guest (tests/vm/lib-nvmet.sh). Where the
# kernel's own nvmet depends on nvme_core (6.12: passthru), the guest's
# target must be the passthru-less build of tests/vm/build-oot-nvmet.sh:
# built here first (cached in $VM_CACHE/oot-nvmet-<kver>), as run-vm.sh
# builds the stand-in for --oot.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
vm=$here/../../vm
kver=${VM_KVER:-}
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
	case ${args[$i]} in -K | --kver) kver=${args[$((i + 1))]} ;; esac
done
[ -n "$kver" ] || kver=$("$vm/default-kver.sh")
if grep -E '^kernel/drivers/nvme/target/nvmet\.ko[^:]*:.*nvme-core' "/lib/modules/$kver/modules.dep" >/dev/null; then
	"$vm/build-oot-nvmet.sh" "${VM_CACHE:?}/oot-nvmet-$kver" "$kver"
fi
exec bash "$vm/run-vm.sh" "$@"
