#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check-scale.sh BUILD_DIR WORK_DIR: the in-use check at scale.
#
# For each size NAMESPACES/MOUNTS (default 256/2500 512/5000 1024/10000
# 2048/20000; BENCH_SIZES to change) builds a synthetic node with bench-node
# (cached in WORK_DIR), checks that the contenders give the same answer
# (compare-answers.py), then times them side by side, interleaved, with
# bench-time:
#   guard-json  nvme-swapguard-kmod --root NODE check --json
#   guard-text  nvme-swapguard-kmod --root NODE check
#   lsblk       lsblk --json --sysroot NODE        (sysfs under NODE/sys, the
#               mount table from NODE/proc/self/mountinfo, swaps NODE/proc/swaps)
#   findmnt     findmnt --json --tab-file NODE/proc/1/mountinfo
#   util-linux  lsblk ... && findmnt ... (one sample: what a script would run)
# Prints bench-time's lines prefixed with the size, tab-separated:
#   namespaces mounts label runs median min max cpu_median maxrss_kib statuses
# BENCH_RUNS (default 5; 3 for the largest size) and BENCH_WARMUP (1).
set -euo pipefail

build=$(realpath "${1:?usage: check-scale.sh BUILD_DIR WORK_DIR}")
work=$(realpath -m "${2:?usage: check-scale.sh BUILD_DIR WORK_DIR}")
here=$(cd "$(dirname "$0")" && pwd)
kmod=$build/kmod-helper/nvme-swapguard-kmod
node_tool=$build/bench/bench-node
timer=$build/bench/bench-time
for f in "$kmod" "$node_tool" "$timer"; do
	[ -x "$f" ] || { echo "check-scale: missing $f (meson compile -C $build)" >&2; exit 1; }
done
command -v lsblk >/dev/null && command -v findmnt >/dev/null ||
	{ echo "check-scale: lsblk and findmnt (util-linux) needed" >&2; exit 1; }
mkdir -p "$work"

sizes=${BENCH_SIZES:-256/2500 512/5000 1024/10000 2048/20000}
largest=${sizes##* }

# A node is rebuilt when bench-node changed since it was built.
build_node() {
	local ns=$1 mounts=$2 dir=$work/node-$1-$2
	if [ -f "$dir.built" ] && [ "$dir.built" -nt "$node_tool" ]; then
		echo "$dir"
		return
	fi
	rm -rf "$dir" "$dir.built"
	echo "# building node $ns namespaces / $mounts mounts" >&2
	"$node_tool" "$dir" "$ns" "$mounts" >"$dir.built.tmp"
	mv "$dir.built.tmp" "$dir.built"
	echo "$dir"
}

echo "# util-linux: $(lsblk --version)" >&2
for size in $sizes; do
	ns=${size%/*} mounts=${size#*/}
	node=$(build_node "$ns" "$mounts")
	echo "# node $ns/$mounts: $(cat "$node.built")" >&2

	# Same question, same answer, before anything is timed.
	"$kmod" --root "$node" check --json >"$work/guard.json" || [ $? = 3 ]
	lsblk --json --sysroot "$node" >"$work/lsblk.json"
	findmnt --json --tab-file "$node/proc/1/mountinfo" >"$work/findmnt.json"
	python3 "$here/compare-answers.py" "$work/guard.json" "$work/lsblk.json" "$work/findmnt.json" |
		sed 's/^/# /' >&2 || { echo "check-scale: the contenders disagree on $node" >&2; exit 1; }

	runs=${BENCH_RUNS:-5}
	[ "$size" = "$largest" ] && runs=${BENCH_RUNS_LARGEST:-3}
	lsblk_cmd="lsblk --json --sysroot $node"
	findmnt_cmd="findmnt --json --tab-file $node/proc/1/mountinfo"
	"$timer" -n "$runs" -w "${BENCH_WARMUP:-1}" \
		"guard-json=$kmod --root $node check --json" \
		"guard-text=$kmod --root $node check" \
		"lsblk=$lsblk_cmd" \
		"findmnt=$findmnt_cmd" \
		"util-linux=$lsblk_cmd && $findmnt_cmd" |
		sed "s/^/$ns\t$mounts\t/"
done
