#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# vm-driverless.sh BUILD_DIR WORK_DIR: the driverless window of a first swap
# on the real kernel, one VM run of the tests/vm harness (script mode, layout
# plain, --oot), guest side in vm-driverless-guest.sh: from the in-tree
# nvme's removal to NVIDIA's nvme live with the namespace back, for the
# daemon's default (UnloadAt=auto, which must choose the ready file), for
# UnloadAt=container-start (the compile, simulated by a sleep, is inside the
# window) and for a bare rmmod + insmod of the same files (the floor), in
# rounds that alternate the three. Needs root, qemu-system-x86_64 and
# Debian's kernel, like suite vm; prints "SKIP: why" and exits 77 without
# them. Knobs: BENCH_WINDOW_ROUNDS (5), BENCH_WINDOW_COMPILE (10 s),
# BENCH_VM_TIMEOUT, BENCH_DEBUG=1 (the daemon's debug lines in the
# timeline). Output, tab-separated, times in ms:
#   label n median min max
#   ratio label floor median/median
# The raw guest output is kept in WORK_DIR/vm-driverless.out.
# BENCH_VM_BUSY=N: N more VMs beside the measured one, each keeping a vCPU
# busy for the whole run, as in vm-reaction.sh (lib-bench.sh's busy_start).
# BENCH_COMPARE_BUILD=DIR: before and after in one run: another build dir
# (another commit's, with its own daemon) is measured in the same boot, its
# two daemon cases next to this build's in every round (the order swapping
# from round to round), against the same floor. The daemon labels then end
# in "@LABEL": BENCH_LABEL for BUILD_DIR, BENCH_COMPARE_LABEL for DIR
# (default: the dir names, with their parent's when both are the same), and
# "ratio label@LABEL label@COMPARE_LABEL" lines compare the two builds
# (BUILD_DIR's median over the compare build's); then "order" and "paired"
# lines (vm-compare-order.py): each build's median when it went first in
# its round and when second, and the median of the per-round ratios. Use
# an even number of rounds, so that each build goes first as often.
set -uo pipefail

build=$(realpath "${1:?usage: vm-driverless.sh BUILD_DIR WORK_DIR}")
work=$(realpath -m "${2:?usage: vm-driverless.sh BUILD_DIR WORK_DIR}")
here=$(cd "$(dirname "$0")" && pwd)
harness=$here/../tests/vm/run-vm.sh
mkdir -p "$work"

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (the VM harness does)"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || { echo "SKIP: no qemu-system-x86_64"; exit 77; }
[ -x "$harness" ] || { echo "SKIP: no $harness"; exit 77; }

# shellcheck source=lib-bench.sh
. "$here/lib-bench.sh"
compare_setup vm-driverless "$build" "daemon/nvme-swapguard"

out=$work/vm-driverless.out
busy_start "$build" "$work" "${BENCH_VM_BUSY:-0}" "${BENCH_VM_TIMEOUT:-1800}"
# The guest runs a copy (bash reads a script as it runs it).
cp "$here/vm-driverless-guest.sh" "$work/vm-driverless-guest.sh"
VM_BUILD_ROOT="$build" bash "$harness" -t "${BENCH_VM_TIMEOUT:-1800}" -l plain --oot -b "$build" -- \
	"$work/vm-driverless-guest.sh" "${BENCH_WINDOW_ROUNDS:-5}" "${BENCH_WINDOW_COMPILE:-10}" "$(cd "$here/.." && pwd)" \
	"${BENCH_DEBUG:+debug}" ${compare:+"compare=$compare,$label_a,$label_b"} >"$out" 2>&1
rc=$?
[ -z "$compare" ] || echo "# compare: load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
if [ $rc = 77 ]; then
	echo "SKIP: $(grep -m1 '^SKIP:' "$out" || echo "the guest skipped")"
	exit 77
fi
if [ $rc != 0 ]; then
	echo "vm-driverless: the VM run failed (exit $rc); see $out" >&2
	grep -E '^(not ok|FAIL|run-vm)' "$out" | tail -20 >&2
fi

tr -d '\r' <"$out" | awk -F'\t' '$1 == "BENCH" { print $2 "\t" $4 }' | python3 -c '
import statistics, sys
# the build labels, "" alone without a compare build (labels without "@")
builds = ["@" + b for b in sys.argv[1:]] or [""]
samples = {}
for line in sys.stdin:
    label, ms = line.rstrip("\n").split("\t")
    samples.setdefault(label, []).append(float(ms))
daemon = [k + b for k in ("window-auto-ready", "window-container-start") for b in builds]
for label in ["window-floor"] + daemon:
    if label in samples:
        v = samples[label]
        print(f"{label}\t{len(v)}\t{statistics.median(v):.1f}\t{min(v):.1f}\t{max(v):.1f}")
med = {k: statistics.median(v) for k, v in samples.items()}
floor = med.get("window-floor", 0)
for label in daemon:
    if label in med and floor > 0:
        print(f"ratio\t{label}\twindow-floor\t{med[label] / floor:.2f}")
# the builds against each other: the compare build is the denominator
for k in ("window-auto-ready", "window-container-start"):
    if len(builds) == 2 and k + builds[0] in med and med.get(k + builds[1], 0) > 0:
        print(f"ratio\t{k + builds[0]}\t{k + builds[1]}\t{med[k + builds[0]] / med[k + builds[1]]:.2f}")
' ${compare:+"$label_a" "$label_b"}
# what the order within a round did, and the builds' ratio paired by round
[ -z "$compare" ] || python3 "$here/vm-compare-order.py" <(tr -d '\r' <"$out") "$label_a" "$label_b"
tr -d '\r' <"$out" | grep -E '^# (window-|timeline|compare)' || :
exit $rc
