#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run-all.sh [BUILD_DIR]: reruns every benchmark and prints one table
# (Markdown, as in docs/BENCHMARKS.md). Numbers, never verdicts: nothing here
# fails because something is slow.
#
#   check-scale.sh   in-use check at 256/2,500 … 2,048/20,000 namespaces/mounts
#                    against lsblk --json + findmnt --json on the same tree
#   vm-reaction.sh   unload/load reaction on Debian's kernel under QEMU (root,
#                    qemu; skipped without them, or with BENCH_SKIP_VM=1)
#   vm-fabrics-reconnect.sh  NVMe/TCP reconnect by the connect unit against
#                    bare `nvme connect`s, 1 and 8 controllers, systemd in a
#                    VM (root, qemu; skipped like vm-reaction.sh)
#   daemon-idle.sh   start-up to READY=1, a minute of idle: CPU, wake-ups, RSS
#   size.sh          stripped binaries, rendered MachineConfig
#
# BUILD_DIR defaults to ./build; it must be configured with tests enabled
# (bench-node links the fake-node library). Raw outputs and the synthetic
# nodes (cached; 1-2 min to build the largest) go to BENCH_WORK
# (default BUILD_DIR/bench-work). Knobs: BENCH_SIZES, BENCH_RUNS,
# BENCH_RUNS_LARGEST, BENCH_IDLE_SECONDS, BENCH_STARTS, BENCH_VM_ITERATIONS,
# BENCH_VM_DAEMON_ITERATIONS, BENCH_FABRICS_COUNTS. A full run takes about an hour on 2 shared
# cores (the largest in-use size most of it): BENCH_SIZES="256/2500 1024/10000"
# for a quick one.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-build}")
work=$(realpath -m "${BENCH_WORK:-$build/bench-work}")
mkdir -p "$work"

meson compile -C "$build" >"$work/compile.log" 2>&1 || { echo "run-all: build failed, see $work/compile.log" >&2; exit 1; }
[ -x "$build/bench/bench-node" ] || { echo "run-all: no bench-node: configure $build with -Dtests=enabled" >&2; exit 1; }

step() {
	local name=$1 out=$2
	shift 2
	echo "run-all: $name ..." >&2
	local t=$SECONDS
	"$@" >"$work/$out.tmp" 2>"$work/$out.err"
	local rc=$?
	mv "$work/$out.tmp" "$work/$out"
	echo "run-all: $name done in $((SECONDS - t)) s (exit $rc; details in $work/$out.err)" >&2
}

step "in-use check at scale" scale.tsv "$here/check-scale.sh" "$build" "$work"
if [ -n "${BENCH_SKIP_VM:-}" ]; then
	echo "SKIP: BENCH_SKIP_VM set" >"$work/vm.tsv"
	echo "SKIP: BENCH_SKIP_VM set" >"$work/fabrics.tsv"
else
	step "reaction time in a VM" vm.tsv "$here/vm-reaction.sh" "$build" "$work"
	step "NVMe/TCP reconnect in a VM" fabrics.tsv "$here/vm-fabrics-reconnect.sh" "$build" "$work"
fi
step "daemon start-up and idle" idle.tsv "$here/daemon-idle.sh" "$build" "$work"
step "sizes" size.tsv "$here/size.sh" "$build" "$work"

echo
echo "Machine: $(nproc) cores, $(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
python3 "$here/table.py" "$work"
