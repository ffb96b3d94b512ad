#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# vm-restart-memory.sh BUILD_DIR WORK_DIR [ATTEMPTS]: the daemon's memory and
# open fds over a driver container's crash loop on the real kernel, through
# the real CRI-O (expected flat over 50 restarts: a leak per restart grows
# without bound on a crash-looping pod). One VM run of
# tests/daemon/vm-crio/crio-crash-loop.sh with ATTEMPTS attempts (default 50;
# each is a kill, kubelet's restart, an unload, a load; 30-60 s under TCG),
# which also asserts every swap. Prints, tab-separated:
#   attempt RssAnon_kB VmRSS_kB fds
# then "summary" lines: first, last, largest step after the tenth attempt.
# Needs what suite vm's CRI-O cases need (root, qemu, ../shared/crio beside
# the clone); prints "SKIP: why" and exits 77 without them. The case runs
# from the source tree: do not edit it while this runs (bash reads a script
# as it runs it). The raw output is kept in WORK_DIR/vm-restart-memory.out.
set -uo pipefail

build=$(realpath "${1:?usage: vm-restart-memory.sh BUILD_DIR WORK_DIR [ATTEMPTS]}")
work=$(realpath -m "${2:?usage: vm-restart-memory.sh BUILD_DIR WORK_DIR [ATTEMPTS]}")
attempts=${3:-50}
here=$(cd "$(dirname "$0")" && pwd)
src=$here/..
mkdir -p "$work"
out=$work/vm-restart-memory.out

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (the VM harness does)"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || { echo "SKIP: no qemu-system-x86_64"; exit 77; }

VM_BUILD_ROOT="$build" VM_CACHE="$build/vm-cache" bash "$src/tests/daemon/vm-crio/run-crio-case.sh" \
	-t $((300 + attempts * 90)) -l plain --oot -m systemd --mem 1024 -- \
	"$src/tests/daemon/vm-crio/crio-crash-loop.sh" "$attempts" >"$out" 2>&1
rc=$?
if [ $rc = 77 ]; then
	echo "SKIP: $(grep -m1 'SKIP:' "$out" || echo "the case skipped")"
	exit 77
fi
[ $rc = 0 ] || echo "vm-restart-memory: the case failed (exit $rc): $(grep -m3 'not ok' "$out" | tr '\n' ' '); see $out" >&2

# "# daemon after attempt 7's swap: VmRSS: 6256 kB RssAnon: 1112 kB fds 19"
sed -nE "s/.*daemon after attempt ([0-9]+)'s swap: VmRSS: ([0-9]+) kB RssAnon: ([0-9]+) kB fds ([0-9]+).*/\1\t\3\t\2\t\4/p" "$out" |
	awk -F'\t' 'BEGIN { print "attempt\tRssAnon_kB\tVmRSS_kB\tfds" }
		{ print; if (NR == 1) { a0 = $2; f0 = $4 } if (NR > 10 && $2 - prev > step) step = $2 - prev
		  prev = $2; last = $2; fl = $4; n = NR }
		END { if (!n) { print "summary\tno measurements"; exit 1 }
		      printf "summary\tfirst RssAnon %d kB, fds %d\n", a0, f0
		      printf "summary\tlast (attempt %d) RssAnon %d kB, fds %d\n", n - 1, last, fl
		      printf "summary\tlargest step after attempt 10: %d kB\n", step }'
exit $rc
