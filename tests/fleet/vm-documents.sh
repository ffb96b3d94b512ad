#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The oc plugin on documents the daemon wrote on a REAL kernel, as its
# shipped unit (sandbox included), with the real journal: one VM run of
# tests/daemon/vm/daemon-status-document.sh (it checks the document in the
# guest and saves it with `journalctl -o json`), then, on the host, the
# plugin against the `oc` stand-in serving what the VM saved. One script, so
# the order is fixed: the VM case first, the plugin after (meson cannot order
# tests across suites). The documents stay in FLEET_VM_DOCUMENTS (build dir).
# Env (set by meson): VM_BUILD_ROOT VM_CACHE FLEET_VM_DOCUMENTS
set -uo pipefail

here=$(cd "${BASH_SOURCE[0]%/*}" && pwd)
src=$(cd "$here/../.." && pwd)
docs=${FLEET_VM_DOCUMENTS:?run through meson test}

rm -rf "$docs"
VM_SAVE_TO=$docs bash "$src/tests/vm/run-vm.sh" -t 300 -l plain --oot -m systemd -- \
	"$src/tests/daemon/vm/daemon-status-document.sh"
rc=$?
[ $rc -eq 77 ] && { echo "SKIP: the VM case skipped (its reason is above)"; exit 77; }
[ $rc -eq 0 ] || { echo "FAIL: the VM case failed (exit $rc)"; exit 1; }
[ -s "$docs/swapped/status.json" ] || { echo "FAIL: the VM case passed but saved no document in $docs"; exit 1; }

tmp=$(mktemp -d /tmp/sg-fleet-vm-XXXXXX)
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
cluster=$tmp/cluster
. "$here/lib-cluster.sh"
cluster_node vm-worker "$(cat "$docs/swapped/boot_id")" worker
cluster_serve vm-worker swapped
cluster_node vm-worker-rebooted "$(cat /proc/sys/kernel/random/uuid)" worker
cluster_serve vm-worker-rebooted swapped
export OC_STANDIN_CLUSTER=$cluster PATH=$here:$PATH SWAPGUARD_CATALOG=$src/daemon/catalog/nvme-swapguard.catalog
failures=0 checks=0
check() { if grep -qE -- "$2" <<<"$3"; then checks=$((checks + 1)); else echo "FAIL: $1: no /$2/ in: $3"; failures=$((failures + 1)); fi; }

out=$("$here/../../plugin/kubectl-swapguard" status --role worker); rc=$?
echo "$out"
[ $rc -eq 3 ] && checks=$((checks + 1)) || { echo "FAIL: status exited $rc, expected 3 (one stale document)"; failures=$((failures + 1)); }
check "swapped node" "^vm-worker +swapped +[0-9]+[smhd] +nvidia +yes \\(v1\\) +-$" "$out"
check "rebooted node" "^vm-worker-rebooted +stale .*earlier boot" "$out"

out=$("$here/../../plugin/kubectl-swapguard" logs vm-worker); rc=$?
[ $rc -eq 0 ] && checks=$((checks + 1)) || { echo "FAIL: logs exited $rc"; failures=$((failures + 1)); }
# the real journal's JSON: entries with their catalog explanation
check "journal" "notice +Swapped .*module nvme is the nvidia build, GDS hooks present" "$out"
check "explanation" "^   \| " "$out"

echo "fleet plugin on the VM's documents: $checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
