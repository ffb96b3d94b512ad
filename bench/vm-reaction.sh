#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# vm-reaction.sh BUILD_DIR WORK_DIR: reaction times on the real kernel, one
# VM run of the tests/vm harness (script mode, layout plain, --oot), guest
# side in vm-reaction-guest.sh. Needs root, qemu-system-x86_64 and Debian's
# kernel, like suite vm; prints "SKIP: why" and exits 77 without them.
# Output, tab-separated, times in ms:
#   label n median min max
#   ratio label floor median/median
# then the daemon's timeline of each iteration ("# timeline": its log lines
# and the module uevents, in ms after the event) and, with BENCH_VM_STRACE=strace,
# one more untimed daemon iteration's `strace -f -c` ("# strace:").
# The raw guest output is kept in WORK_DIR/vm-reaction.out.
# BENCH_VM_BUSY=N: N more VMs (vm-busy-guest.sh) keep a vCPU each busy for
# the whole run, beside the measured one: the ratios under CPU contention
# (started first; ended by their process group's id at the end).
# BENCH_COMPARE_BUILD=DIR: before and after in one run: another build dir
# (another commit's, with its own daemon and CLI) is measured in the same
# boot: every cli-* and daemon-* measurement for both builds, one after the
# other (the first alternating from iteration to iteration), and the floors
# also once in each daemon iteration (vm-reaction-guest.sh). The labels
# then end in "@LABEL": BENCH_LABEL for BUILD_DIR, BENCH_COMPARE_LABEL for
# DIR (default: the dir names, with their parent's when both are the
# same); each ratio is given for both builds, and "ratio label@LABEL
# label@COMPARE_LABEL" lines compare the two (BUILD_DIR's median over the
# compare build's); then "order" and "paired" lines (vm-compare-order.py):
# each build's median when it went first in its iteration and when second,
# and the median of the per-iteration ratios. Use an even number of
# iterations, so that each build goes first as often.
set -uo pipefail

build=$(realpath "${1:?usage: vm-reaction.sh BUILD_DIR WORK_DIR}")
work=$(realpath -m "${2:?usage: vm-reaction.sh BUILD_DIR WORK_DIR}")
here=$(cd "$(dirname "$0")" && pwd)
harness=$here/../tests/vm/run-vm.sh
mkdir -p "$work"

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (the VM harness does)"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || { echo "SKIP: no qemu-system-x86_64"; exit 77; }
[ -x "$harness" ] || { echo "SKIP: no $harness"; exit 77; }
[ -x "$build/bench/bench-time" ] || { echo "SKIP: no $build/bench/bench-time"; exit 77; }

# shellcheck source=lib-bench.sh
. "$here/lib-bench.sh"
compare_setup vm-reaction "$build" "daemon/nvme-swapguard" "kmod-helper/nvme-swapguard-kmod"

out=$work/vm-reaction.out
busy_start "$build" "$work" "${BENCH_VM_BUSY:-0}" "${BENCH_VM_TIMEOUT:-1200}"
# bash reads a script as it runs it: the guest runs a copy, so that editing
# the source meanwhile cannot change a run under way. The guest sees no host
# environment: the iteration counts go as arguments.
cp "$here/vm-reaction-guest.sh" "$work/vm-reaction-guest.sh"
VM_BUILD_ROOT="$build" bash "$harness" -t "${BENCH_VM_TIMEOUT:-1200}" -l plain --oot -b "$build" -- \
	"$work/vm-reaction-guest.sh" "${BENCH_VM_ITERATIONS:-5}" "${BENCH_VM_DAEMON_ITERATIONS:-3}" "${BENCH_VM_STRACE:-}" \
	${compare:+"compare=$compare,$label_a,$label_b"} >"$out" 2>&1
rc=$?
[ -z "$compare" ] || echo "# compare: load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
if [ $rc = 77 ]; then
	echo "SKIP: $(grep -m1 '^SKIP:' "$out" || echo "the guest skipped")"
	exit 77
fi
if [ $rc != 0 ]; then
	echo "vm-reaction: the VM run failed (exit $rc); see $out" >&2
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
order = ["cli-version", "cli-check", "cli-unload", "daemon-unload", "floor-rmmod", "floor-modprobe-r",
         "cli-load", "daemon-load", "floor-insmod"]
order = [k + b for k in order for b in ([""] if k.startswith("floor-") else builds)]
for label in order + sorted(set(samples) - set(order)):
    if label in samples:
        v = samples[label]
        print(f"{label}\t{len(v)}\t{statistics.median(v):.1f}\t{min(v):.1f}\t{max(v):.1f}")
med = {k: statistics.median(v) for k, v in samples.items()}
for label, floor in (("cli-unload", "floor-rmmod"), ("cli-unload", "floor-modprobe-r"),
                     ("daemon-unload", "floor-rmmod"), ("daemon-unload", "floor-modprobe-r"),
                     ("cli-load", "floor-insmod"), ("daemon-load", "floor-insmod")):
    for b in builds:
        if label + b in med and floor in med and med[floor] > 0:
            print(f"ratio\t{label + b}\t{floor}\t{med[label + b] / med[floor]:.2f}")
# the builds against each other: the compare build is the denominator
for label in ("cli-unload", "daemon-unload", "cli-load", "daemon-load"):
    if len(builds) == 2 and label + builds[0] in med and med.get(label + builds[1], 0) > 0:
        print(f"ratio\t{label + builds[0]}\t{label + builds[1]}\t{med[label + builds[0]] / med[label + builds[1]]:.2f}")
' ${compare:+"$label_a" "$label_b"}
# what the order within an iteration did, and the builds' ratio paired by iteration
[ -z "$compare" ] || python3 "$here/vm-compare-order.py" <(tr -d '\r' <"$out") "$label_a" "$label_b"
tr -d '\r' <"$out" | grep -E '^# (timeline|strace|compare)' || :
exit $rc
