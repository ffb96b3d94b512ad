# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by the benchmarks: two builds in one run (vm-driverless.sh,
# vm-reaction.sh, daemon-idle.sh) and the busy neighbour VMs (the two VM
# benchmarks).
#
# compare_setup NAME BUILD FILE...: with BENCH_COMPARE_BUILD=DIR set (a build
# dir of another commit), sets compare (its real path) and the two labels,
# label_a for BUILD and label_b for DIR: BENCH_LABEL and BENCH_COMPARE_LABEL,
# by default the dirs' names (with their parent's when both are the same,
# e.g. two worktrees' build-bench). Each FILE (relative to DIR) must be an
# executable there. Without BENCH_COMPARE_BUILD, all three are empty. Prints
# "# compare: ..." with the load average; exits 1 on a missing file or two
# equal labels.
compare_setup() {
	local name=$1 build=$2 f
	shift 2
	compare='' label_a='' label_b=''
	[ -n "${BENCH_COMPARE_BUILD:-}" ] || return 0
	compare=$(realpath "$BENCH_COMPARE_BUILD")
	for f in "$@"; do
		[ -x "$compare/$f" ] || { echo "$name: no $compare/$f (meson compile -C $compare)" >&2; exit 1; }
	done
	label_a=$(basename "$build") label_b=$(basename "$compare")
	if [ "$label_a" = "$label_b" ]; then
		label_a=$(basename "$(dirname "$build")")/$label_a
		label_b=$(basename "$(dirname "$compare")")/$label_b
	fi
	label_a=${BENCH_LABEL:-$label_a} label_b=${BENCH_COMPARE_LABEL:-$label_b}
	case "$label_a$label_b" in
	*[[:space:]=,]*) echo "$name: a label with a space, '=' or ',': $label_a, $label_b" >&2; exit 1 ;;
	esac
	case $compare in
	*[[:space:],]*) echo "$name: a space or ',' in $compare (the guest gets it in a word of a list)" >&2; exit 1 ;;
	esac
	[ "$label_a" != "$label_b" ] || { echo "$name: BENCH_LABEL and BENCH_COMPARE_LABEL are the same ($label_a)" >&2; exit 1; }
	echo "# compare: @$label_a $build, @$label_b $compare (load average at the start $(cut -d' ' -f1-3 /proc/loadavg))"
}

# busy_start BUILD WORK N SECONDS: N more VMs (vm-busy-guest.sh), each keeping
# a vCPU busy for SECONDS (the measured VM's timeout), beside it: the
# measurement under CPU contention. Each in its own process group (setsid),
# so that busy_stop (set as the EXIT trap) ends the whole VM by the group's
# id; returns when each neighbour's qemu runs and has booted, and prints
# "# busy: ..." with the load average.
busy_pids=()
busy_stop() {
	local p qemu=()
	# run-vm.sh runs qemu under timeout(1), which moves to a process group
	# of its own: killing the harness's group left the neighbours' qemu
	# running until their timeout; timeout passes the signal on to qemu
	for p in "${busy_pids[@]}"; do
		mapfile -t -O "${#qemu[@]}" qemu < <(ps -o pid= --ppid "$p" 2>/dev/null | tr -d " ")
	done
	for p in "${busy_pids[@]}"; do kill -- "-$p" 2>/dev/null; done
	for p in "${qemu[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${busy_pids[@]}"; do wait "$p" 2>/dev/null; done
	busy_pids=()
}
# (here and harness: the sourcing script's)
# shellcheck disable=SC2154
busy_start() {
	local build=$1 work=$2 busy=$3 seconds=$4 b i n
	trap busy_stop EXIT
	for ((b = 1; b <= busy; b++)); do
		cp "$here/vm-busy-guest.sh" "$work/vm-busy-guest.sh"
		VM_BUILD_ROOT="$build" setsid bash "$harness" -t "$seconds" -l none -b "$build" -- \
			"$work/vm-busy-guest.sh" "$seconds" >"$work/vm-busy-$b.out" 2>&1 &
		busy_pids+=($!)
	done
	[ "$busy" -gt 0 ] || return 0
	# until each neighbour's qemu runs (run-vm.sh names the script when it
	# starts it), then its boot (a few seconds): the boot is not the contention
	for ((i = 0; i < 600; i++)); do
		n=0
		for ((b = 1; b <= busy; b++)); do
			grep -q 'vm-busy-guest' "$work/vm-busy-$b.out" 2>/dev/null && n=$((n + 1))
		done
		[ "$n" = "$busy" ] && break
		sleep 1
	done
	sleep 15
	echo "# busy: $busy neighbour VMs running (load average $(cut -d' ' -f1-3 /proc/loadavg))"
}
