#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# daemon-idle.sh BUILD_DIR WORK_DIR: start-up time to READY=1 and idle cost
# of the daemon (daemon-idle.py) on a fake node like the daemon suite's: the
# in-tree stack loaded (t10_pi, nvme_core, nvme), one namespace with a
# partition, an empty CRI-O store, no ready file, no container. The daemon
# runs with --root and --log-target stderr, without the fake kernel shim
# (with no container it never loads or removes a module).
# BENCH_IDLE_SECONDS (60) and BENCH_STARTS (7). Two idle windows: the unit's
# WatchdogSec=2min, then a 10 s watchdog (keys wd10s_*) as a control.
# BENCH_COMPARE_BUILD=DIR (lib-bench.sh): another build's daemon on the same
# fake node too, the keys of each build ending in "@LABEL" (BENCH_LABEL,
# BENCH_COMPARE_LABEL); one after the other, not interleaved: this build's
# start-ups and idle minute, the other's, then the control minutes in the
# other order.
set -euo pipefail

build=$(realpath "${1:?usage: daemon-idle.sh BUILD_DIR WORK_DIR}")
work=$(realpath -m "${2:?usage: daemon-idle.sh BUILD_DIR WORK_DIR}")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib-bench.sh
. "$here/lib-bench.sh"
compare_setup daemon-idle "$build" daemon/nvme-swapguard
daemon=$build/daemon/nvme-swapguard
fn=$build/tests/fakeroot/fake-node
for f in "$daemon" "$fn"; do
	[ -x "$f" ] || { echo "daemon-idle: missing $f (meson compile -C $build)" >&2; exit 1; }
done

root=$work/idle-root
rel=6.1.0-fake-amd64
rm -rf "$root"
mkdir -p "$root"
"$fn" "$root" init $rel
"$fn" "$root" ko /lib/modules/$rel kernel/block/t10-pi.ko t10_pi - -
"$fn" "$root" ko /lib/modules/$rel kernel/drivers/nvme/host/nvme-core.ko nvme_core t10-pi -
"$fn" "$root" ko /lib/modules/$rel kernel/drivers/nvme/host/nvme.ko nvme nvme-core -
"$fn" "$root" modules-dep /lib/modules/$rel
"$fn" "$root" module t10_pi -1 nvme_core
"$fn" "$root" module nvme_core -1 nvme
"$fn" "$root" module nvme 0 -
"$fn" "$root" namespace 0 1 partitions=1
mkdir -p "$root/run/containers/storage/overlay-containers" "$root/etc/nvme-swapguard"

if [ -z "$compare" ]; then
	# As the unit runs it (WatchdogSec=2min): start-ups, then an idle minute.
	python3 "$here/daemon-idle.py" "$daemon" "$root" --starts "${BENCH_STARTS:-7}" \
		--idle "${BENCH_IDLE_SECONDS:-60}" --log "$work/daemon-idle.log" || exit 1
	# The same minute with a 10 s watchdog: the pings must show up, one wake-up
	# each, so that "no wake-up" above is the daemon's and not a blind meter.
	python3 "$here/daemon-idle.py" "$daemon" "$root" --starts 0 --prefix wd10s_ \
		--watchdog-usec 10000000 --idle "${BENCH_IDLE_SECONDS:-60}" --log "$work/daemon-idle.log"
	rm -rf "$root"
	exit 0
fi
# both builds: each key gets the build's label
for b in "$label_a=$daemon" "$label_b=$compare/daemon/nvme-swapguard"; do
	python3 "$here/daemon-idle.py" "${b#*=}" "$root" --starts "${BENCH_STARTS:-7}" \
		--idle "${BENCH_IDLE_SECONDS:-60}" --log "$work/daemon-idle.log" | awk -F'\t' -v OFS='\t' -v l="@${b%%=*}" '{ $1 = $1 l; print }'
done
for b in "$label_b=$compare/daemon/nvme-swapguard" "$label_a=$daemon"; do
	python3 "$here/daemon-idle.py" "${b#*=}" "$root" --starts 0 --prefix wd10s_ \
		--watchdog-usec 10000000 --idle "${BENCH_IDLE_SECONDS:-60}" --log "$work/daemon-idle.log" |
		awk -F'\t' -v OFS='\t' -v l="@${b%%=*}" '{ $1 = $1 l; print }'
done
rm -rf "$root"
