#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# vm-fabrics-reconnect.sh BUILD_DIR WORK_DIR: NVMe/TCP reconnect time of the
# shipped connect unit (nvme-swapguard-fabrics.path + .service, under
# systemd in the guest) against bare `nvme connect`s of the same
# connections, with 1 and 8 controllers on a loopback nvmet target. One VM
# run of the tests/vm harness (systemd mode, layout plain, through
# tests/daemon/vm/run-fabrics-case.sh: the passthru-less nvmet where the
# kernel's own holds nvme_core); guest side in vm-fabrics-reconnect-guest.sh.
# Needs root, qemu-system-x86_64 and Debian's kernel, like suite vm; prints
# "SKIP: why" and exits 77 without them.
# Knobs: BENCH_VM_ITERATIONS (5), BENCH_FABRICS_COUNTS ("1,8"), BENCH_VM_TIMEOUT.
# Output, tab-separated, times in ms:
#   label n median min max
#   ratio ours-N|cli-N floor-N median/median
# then the unit's timeline of each request ("# timeline"). The raw guest
# output is kept in WORK_DIR/vm-fabrics-reconnect.out.
set -uo pipefail

build=$(realpath "${1:?usage: vm-fabrics-reconnect.sh BUILD_DIR WORK_DIR}")
work=$(realpath -m "${2:?usage: vm-fabrics-reconnect.sh BUILD_DIR WORK_DIR}")
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
runner=$src/tests/daemon/vm/run-fabrics-case.sh
mkdir -p "$work"

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (the VM harness does)"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || { echo "SKIP: no qemu-system-x86_64"; exit 77; }
[ -x "$runner" ] || [ -f "$runner" ] || { echo "SKIP: no $runner"; exit 77; }
[ -x "$build/kmod-helper/nvme-swapguard-kmod" ] || { echo "SKIP: no $build/kmod-helper/nvme-swapguard-kmod"; exit 77; }
[ -f "$build/systemd/nvme-swapguard-fabrics.service" ] || { echo "SKIP: no $build/systemd/nvme-swapguard-fabrics.service"; exit 77; }

out=$work/vm-fabrics-reconnect.out
# The guest runs a copy (bash reads a script as it runs it) and sees no
# host environment: the knobs go as arguments.
cp "$here/vm-fabrics-reconnect-guest.sh" "$work/vm-fabrics-reconnect-guest.sh"
VM_BUILD_ROOT="$build" VM_CACHE="${VM_CACHE:-$build/vm-cache}" bash "$runner" -t "${BENCH_VM_TIMEOUT:-1500}" \
	-l plain -m systemd -b "$build" -- "$work/vm-fabrics-reconnect-guest.sh" \
	"${BENCH_VM_ITERATIONS:-5}" "${BENCH_FABRICS_COUNTS:-1,8}" "$src" >"$out" 2>&1
rc=$?
if [ $rc = 77 ]; then
	echo "SKIP: $(grep -m1 '^SKIP:' "$out" || echo "the guest skipped")"
	exit 77
fi
if [ $rc != 0 ]; then
	echo "vm-fabrics-reconnect: the VM run failed (exit $rc); see $out" >&2
	grep -E '^(not ok|FAIL|run-vm)' "$out" | tail -20 >&2
fi

# systemd mode: the guest's lines come through the journal on the console,
# "[   38.538910] bash[218]: " before each
lines() { tr -d '\r' <"$out" | sed -E 's/^\[ *[0-9.]+\] [^ ]+\[[0-9]+\]: //'; }
lines | awk -F'\t' '$1 == "BENCH" { print $2 "\t" $4 }' | python3 -c '
import re, statistics, sys
samples = {}
for line in sys.stdin:
    label, ms = line.rstrip("\n").split("\t")
    samples.setdefault(label, []).append(float(ms))
def key(label):
    m = re.match(r"(floor|cli|ours)-(\d+)(.*)", label)
    parts = ["", "-start", "-first", "-rest", "-tail"]
    rest = m.group(3) if m else label
    return (int(m.group(2)) if m else 0, ["floor", "cli", "ours"].index(m.group(1)) if m else 3,
            parts.index(rest) if rest in parts else 9, label)
for label in sorted(samples, key=key):
    v = samples[label]
    print(f"{label}\t{len(v)}\t{statistics.median(v):.1f}\t{min(v):.1f}\t{max(v):.1f}")
med = {k: statistics.median(v) for k, v in samples.items()}
for label in sorted(med, key=key):
    m = re.fullmatch(r"(?:ours|cli)-(\d+)", label)
    floor = "floor-" + m.group(1) if m else ""
    if m and med.get(floor, 0) > 0:
        print(f"ratio\t{label}\t{floor}\t{med[label] / med[floor]:.2f}")
'
lines | grep -E '^# timeline' || :
exit $rc
