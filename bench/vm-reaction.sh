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

out=$work/vm-reaction.out
busy_pids=()
stop_busy() {
	local p
	for p in "${busy_pids[@]}"; do kill -- "-$p" 2>/dev/null; done
	for p in "${busy_pids[@]}"; do wait "$p" 2>/dev/null; done
	busy_pids=()
}
trap stop_busy EXIT
for ((b = 1; b <= ${BENCH_VM_BUSY:-0}; b++)); do
	cp "$here/vm-busy-guest.sh" "$work/vm-busy-guest.sh"
	# its own process group (setsid), so that the whole VM goes with it
	VM_BUILD_ROOT="$build" setsid bash "$harness" -t "${BENCH_VM_TIMEOUT:-1200}" -l none -b "$build" -- \
		"$work/vm-busy-guest.sh" "${BENCH_VM_TIMEOUT:-1200}" >"$work/vm-busy-$b.out" 2>&1 &
	busy_pids+=($!)
done
if [ "${BENCH_VM_BUSY:-0}" -gt 0 ]; then
	# until each neighbour's qemu runs (run-vm.sh names the script when it
	# starts it), then its boot (a few seconds): the boot is not the contention
	for ((i = 0; i < 600; i++)); do
		n=0
		for ((b = 1; b <= BENCH_VM_BUSY; b++)); do
			grep -q 'vm-busy-guest' "$work/vm-busy-$b.out" 2>/dev/null && n=$((n + 1))
		done
		[ "$n" = "$BENCH_VM_BUSY" ] && break
		sleep 1
	done
	sleep 15
	echo "# busy: $BENCH_VM_BUSY neighbour VMs running (load average $(cut -d' ' -f1-3 /proc/loadavg))"
fi
# bash reads a script as it runs it: the guest runs a copy, so that editing
# the source meanwhile cannot change a run under way. The guest sees no host
# environment: the iteration counts go as arguments.
cp "$here/vm-reaction-guest.sh" "$work/vm-reaction-guest.sh"
VM_BUILD_ROOT="$build" bash "$harness" -t "${BENCH_VM_TIMEOUT:-1200}" -l plain --oot -b "$build" -- \
	"$work/vm-reaction-guest.sh" "${BENCH_VM_ITERATIONS:-5}" "${BENCH_VM_DAEMON_ITERATIONS:-3}" "${BENCH_VM_STRACE:-}" >"$out" 2>&1
rc=$?
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
samples = {}
for line in sys.stdin:
    label, ms = line.rstrip("\n").split("\t")
    samples.setdefault(label, []).append(float(ms))
order = ["cli-version", "cli-check", "cli-unload", "daemon-unload", "floor-rmmod", "floor-modprobe-r",
         "cli-load", "daemon-load", "floor-insmod"]
for label in order + sorted(set(samples) - set(order)):
    if label in samples:
        v = samples[label]
        print(f"{label}\t{len(v)}\t{statistics.median(v):.1f}\t{min(v):.1f}\t{max(v):.1f}")
med = {k: statistics.median(v) for k, v in samples.items()}
for label, floor in (("cli-unload", "floor-rmmod"), ("cli-unload", "floor-modprobe-r"),
                     ("daemon-unload", "floor-rmmod"), ("daemon-unload", "floor-modprobe-r"),
                     ("cli-load", "floor-insmod"), ("daemon-load", "floor-insmod")):
    if label in med and floor in med and med[floor] > 0:
        print(f"ratio\t{label}\t{floor}\t{med[label] / med[floor]:.2f}")
'
tr -d '\r' <"$out" | grep -E '^# (timeline|strace)' || :
exit $rc
