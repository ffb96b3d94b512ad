# SPDX-License-Identifier: Apache-2.0
# Guest side of vm-driverless.sh: runs inside the tests/vm harness (script
# mode, layout plain, --oot), as root on Debian's kernel under TCG.
# Prints one "BENCH<TAB>what<TAB>round<TAB>ms" line per measurement.
#
# The driverless window: from the in-tree nvme's removal (the kernel's
# remove uevent of module nvme) to NVIDIA's nvme live with the namespace
# back (the add uevent of the nvmeXnY block device that follows, path
# /devices/.../nvme/nvmeX/nvmeXnY), stamped on receipt by a
# NETLINK_KOBJECT_UEVENT logger (CLOCK_MONOTONIC). Per round,
# each from the in-tree stack loaded and nvme0n1 present:
#   window-floor            rmmod nvme nvme_core; insmod nvme-core.ko nvme.ko
#                           (the container's files; what a person would type)
#   window-auto-ready       the daemon with its default UnloadAt=auto: a
#                           driver container whose image keeps openibd's
#                           mod_load_funcs (check_if_ok_to_stop without nvme)
#                           starts; the daemon must choose the ready file; the
#                           ready file is created: it unloads, then loads
#   window-container-start  the daemon with UnloadAt=container-start: it
#                           unloads at the container's start; the compile
#                           (COMPILE_SECONDS of sleep) runs without a driver;
#                           then the ready file
# In both daemon cases `openibd restart`'s one effect here, mlx_compat from
# the container's tree, happens just before the ready file, as in the
# container. Arguments: ROUNDS (5) COMPILE_SECONDS (10) SOURCE_DIR [debug]
# [compare=COMPARE_BUILD,LABEL,COMPARE_LABEL] (the harness joins the
# arguments with spaces and the guest's shell splits them again: an empty
# one is lost, so the optional ones are words). With COMPARE_BUILD (another build dir,
# reached at its host path through the 9p root), each round also runs both
# daemon cases with that build's daemon, right after or before this build's
# (the order swaps every round), and the daemon labels get "@LABEL" /
# "@COMPARE_LABEL"; the floor is shared.
# shellcheck source=../tests/vm/lib.sh
. "$VM_LIB"

daemon=$VM_BUILD_ROOT/daemon/nvme-swapguard
rounds=${1:-5}
compile=${2:-10}
src=${3:?the source directory}
debug='' # "debug": the daemon's debug lines in the timeline
compare='' label_a='' label_b=''
for a in "${@:4}"; do
	case $a in
	debug) debug=debug ;;
	compare=*) IFS=, read -r compare label_a label_b <<<"${a#compare=}" ;;
	*) vm_fatal "unknown argument $a" ;;
	esac
done
[ -x "$daemon" ] || vm_skip "no $daemon (meson compile first)"
if [ -n "$compare" ]; then
	[ -x "$compare/daemon/nvme-swapguard" ] || vm_fatal "no $compare/daemon/nvme-swapguard"
	[ -n "$label_a" ] && [ -n "$label_b" ] && [ "$label_a" != "$label_b" ] || vm_fatal "two different labels needed"
	vm_log "compare: @$label_a $daemon (md5 $(md5sum <"$daemon" | cut -c1-12))"
	vm_log "compare: @$label_b $compare/daemon/nvme-swapguard (md5 $(md5sum <"$compare/daemon/nvme-swapguard" | cut -c1-12))"
fi
[ -n "${VM_OOT_ROOT:-}" ] || vm_skip "needs run-vm.sh --oot"
dev=$(plain_namespace) || vm_fatal "no plain namespace"
work=$(mktemp -d /tmp/bench.XXXXXX)

# The driver container: its root a copy of the stand-in's, openibd's
# functions where mlnx-ofa_kernel installs them, and a shell running its
# entrypoint script (which the daemon reads: it loads no nvme itself).
croot=$work/ctr
mkdir -p "$croot"/{bin,lib/modules,proc,tmp,root,usr/share/mlnx_ofed}
cp /bin/busybox "$croot/bin/busybox"
ln -s busybox "$croot/bin/sh"
ln -s busybox "$croot/bin/sleep"
cp -a "$VM_OOT_ROOT/lib/modules/$VM_KVER" "$croot/lib/modules/"
cp "$src/tests/daemon/vm/fake-mod-load-funcs.sh" "$croot/usr/share/mlnx_ofed/mod_load_funcs"
printf '#!/bin/sh\n# the compile and openibd restart are timed by the benchmark\nwhile :; do sleep 1000; done\n' >"$croot/root/entrypoint.sh"
unshare --mount --pid --fork --root="$croot" /bin/busybox sh /root/entrypoint.sh 2>/dev/null &
unshare_pid=$!
cpid=
for _ in $(seq 1 100); do
	cpid=$(cat "/proc/$unshare_pid/task/$unshare_pid/children" 2>/dev/null | cut -d' ' -f1)
	[ -n "$cpid" ] && break
	sleep 0.05
done
[ -n "$cpid" ] || vm_fatal "the driver container did not start"
ctree=/proc/$cpid/root/lib/modules/$VM_KVER
kos=$ctree/extra/mlnx-nvme/host
compat=$ctree/extra/mlnx-ofa_kernel/compat/mlx_compat.ko
[ -f "$kos/nvme.ko" ] && [ -f "$compat" ] || vm_fatal "no $kos/nvme.ko or $compat"

# The uevent logger, up for the whole run so every measurement shares its cost.
python3 - "$work/uevents" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 15)  # NETLINK_KOBJECT_UEVENT
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
s.bind((0, 1))  # the kernel's group: no udevd needed
out = open(sys.argv[1], "w")
out.write("listening\n"); out.flush()
while True:
    data = s.recv(1 << 16)
    t = time.monotonic()
    header = data.split(b"\0", 1)[0].decode(errors="replace")
    out.write("%.6f %s\n" % (t, header))
    out.flush()
PY
logger_pid=$!
for _ in $(seq 1 300); do
	grep -q listening "$work/uevents" 2>/dev/null && break
	sleep 0.1
done
grep -q listening "$work/uevents" || vm_fatal "uevent logger did not start"

now() { python3 -c 'import time; print(f"{time.monotonic():.6f}")'; }

# The node as at boot: the in-tree stack, no mlx_compat, the namespace there.
in_tree_loaded() {
	if module_loaded nvme && [ -n "$(module_taint nvme)" ]; then rmmod nvme nvme_core; fi
	module_loaded mlx_compat && rmmod mlx_compat
	rm -f /run/modprobe.d/nvme-swapguard.conf
	module_loaded nvme || modprobe nvme || vm_fatal "modprobe nvme"
	wait_for_block "$dev" 60 || vm_fatal "$dev did not come back"
	sleep 0.5
}
# openibd restart's effect here: mlx_compat from the container's tree.
openibd_restart() { module_loaded mlx_compat || insmod "$compat" || vm_fatal "insmod $compat"; }

# window LABEL ROUND AFTER: one sample, from the remove uevent of module nvme
# after AFTER to the next add uevent of a namespace block device.
window() {
	local t
	t=$(awk -v after="$3" '
		$1 > after && $2 == "remove@/module/nvme" && !start { start = $1 }
		start && $1 >= start && $2 ~ /^add@.*\/nvme[0-9]+n[0-9]+$/ { printf "%.3f", ($1 - start) * 1e3; exit }
	' "$work/uevents")
	if [ -z "$t" ]; then
		vm_fail "$1 round $2: no nvme removal followed by a namespace's return"
		return 1
	fi
	printf 'BENCH\t%s\t%s\t%s\n' "$1" "$2" "$t"
}

# --- the daemon ---------------------------------------------------------------
id=$(echo mofed-container | sha256sum | cut -c1-64)
ud=/run/containers/storage/overlay-containers/$id/userdata
# CRI-O runs a container in crio-<id>.scope and the daemon checks that the
# pidfile's pid is in it; script mode has no systemd, so place it by hand.
cg=/sys/fs/cgroup/kubepods.slice/crio-$id.scope
[ -e /sys/fs/cgroup/cgroup.procs ] || mount -t cgroup2 cgroup2 /sys/fs/cgroup || vm_fatal "cgroup2"
mkdir -p "$cg" && echo "$cpid" >"$cg/cgroup.procs" || vm_fatal "cannot put the container in $cg"

read_state() {
	local s=
	STATE=
	[ -r /run/nvme-swapguard/state.json ] && read -r -d '' s </run/nvme-swapguard/state.json
	[[ $s =~ \"state\":\ *\"([a-z-]+)\" ]] && STATE=${BASH_REMATCH[1]}
	return 0
}
wait_state() {
	local deadline=$((SECONDS + 120))
	while [ $SECONDS -lt $deadline ]; do
		read_state
		[ "$STATE" = "$1" ] && return 0
		sleep 0.05
	done
	vm_fail "daemon state '$STATE', expected $1"
	tail -20 "$work/daemon.log" | sed 's/^/# daemon: /'
	return 1
}

# daemon_round LABEL ROUND UNLOAD_AT [DAEMON]: one swap by the daemon (this
# build's, else DAEMON), from a fresh start; UNLOAD_AT is the
# configuration's (auto or container-start).
daemon_round() {
	local label=$1 round=$2 at=$3 daemon=${4:-$daemon} t0 expect
	in_tree_loaded
	rm -rf /run/nvme-swapguard /run/mellanox "${ud%/userdata}"
	mkdir -p /run/containers/storage/overlay-containers /etc/nvme-swapguard-bench
	printf '[Swap]\nUnloadAt=%s\n' "$at" >/etc/nvme-swapguard-bench/nvme-swapguard.conf
	# each log line stamped on arrival (CLOCK_MONOTONIC, the uevent
	# logger's clock) for the timeline of the window
	: >"$work/daemon.log"
	rm -f "$work/log.fifo" && mkfifo "$work/log.fifo"
	python3 -u -c '
import sys, time
for l in sys.stdin:
    print(f"{time.monotonic():.6f} {l}", end="", flush=True)' <"$work/log.fifo" >"$work/daemon.log" &
	stamper=$!
	"$daemon" --config /etc/nvme-swapguard-bench/nvme-swapguard.conf --log-target stderr ${debug:+--debug} >"$work/log.fifo" 2>&1 &
	dpid=$!
	wait_state idle || return 1
	mkdir -p "$ud"
	cat >"$ud/config.json" <<-JSON
	{"ociVersion":"1.0.2-dev","process":{"args":["/bin/busybox","sh","/root/entrypoint.sh"]},
	 "annotations":{"io.container.manager":"cri-o","io.kubernetes.container.name":"mofed-container",
	  "io.kubernetes.pod.name":"mofed-rhcos4.16-7d9f6b8c5d-ds-x2k4p",
	  "io.kubernetes.pod.namespace":"nvidia-network-operator",
	  "io.kubernetes.pod.uid":"0b7c3f5e-2a1d-4c8e-9f6a-1e2d3c4b5a69"}}
	JSON
	sleep 1 # config.json read and matched: the pidfile is the start event
	t0=$(now)
	echo "$cpid" >"$ud/.pidfile.tmp" && mv "$ud/.pidfile.tmp" "$ud/pidfile"
	if [ "$at" = auto ]; then
		wait_state container-seen || return 1
		sleep 0.5
		expect="goes at its ready file"
		grep -q "$expect" "$work/daemon.log" || { vm_fail "$label: the daemon did not choose the ready file"; grep -i unloadat "$work/daemon.log" | sed 's/^/# /'; return 1; }
		module_loaded nvme || vm_fail "$label: nvme unloaded before the ready file"
	else
		wait_state unloaded-waiting-driver || return 1
		sleep "$compile" # the compile, without a driver
	fi
	openibd_restart
	mkdir -p /run/mellanox/drivers && : >/run/mellanox/drivers/.driver-ready
	wait_state swapped || return 1
	wait_for_block "$dev" 60 || vm_fail "$label: $dev not back after the daemon's load"
	[[ $(module_taint nvme) == *O* ]] || vm_fail "$label: the daemon did not load the out-of-tree nvme"
	sleep 0.3
	window "$label" "$round" "$t0"
	[ "$round" = 1 ] && grep -E 'UnloadAt=auto' "$work/daemon.log" | head -1 | cut -d' ' -f2- | sed "s/^/# $label daemon: /"
	[ "$at" = auto ] && timeline "$label $round" "$t0"
	kill -TERM "$dpid"
	wait "$dpid" "$stamper"
}
# timeline LABEL AFTER: the daemon's log lines and the uevents of the window
# (from the removal of module nvme after AFTER to the namespace's return), in
# ms after the removal.
timeline() {
	local from to
	from=$(awk -v after="$2" '$1 > after && $2 == "remove@/module/nvme" { print $1; exit }' "$work/uevents")
	to=$(awk -v a="$from" '$1 >= a && $2 ~ /^add@.*\/nvme[0-9]+n[0-9]+$/ { print $1; exit }' "$work/uevents")
	[ -n "$from" ] && [ -n "$to" ] || return 0
	{
		awk -v a="$from" -v b="$to" '$1 >= a - 0.3 && $1 <= b + 0.05 { $2 = ""; print }' "$work/daemon.log"
		awk -v a="$from" -v b="$to" '$1 >= a && $1 <= b && $2 ~ /@\/module\/|nvme[0-9]+n[0-9]+$/ { print $1, "uevent", $2 }' "$work/uevents"
	} | sort -n | awk -v a="$from" -v l="$1" '{ t = $1; $1 = ""; printf "# timeline %s: %+8.1f ms %s\n", l, (t - a) * 1e3, substr($0, 1, 170) }'
}

for r in $(seq 1 "$rounds"); do
	in_tree_loaded
	openibd_restart
	t0=$(now)
	rmmod nvme nvme_core && insmod "$kos/nvme-core.ko" && insmod "$kos/nvme.ko" || vm_fail "floor round $r"
	wait_for_block "$dev" 60 || vm_fail "floor: $dev not back"
	sleep 0.3
	window window-floor "$r" "$t0"
	if [ -z "$compare" ]; then
		daemon_round window-auto-ready "$r" auto
		daemon_round window-container-start "$r" container-start
		continue
	fi
	# both builds, the first one alternating from round to round
	if [ $((r % 2)) = 1 ]; then
		order=("$label_a=$daemon" "$label_b=$compare/daemon/nvme-swapguard")
	else
		order=("$label_b=$compare/daemon/nvme-swapguard" "$label_a=$daemon")
	fi
	for at in auto container-start; do
		for o in "${order[@]}"; do
			kind=window-auto-ready
			[ "$at" = auto ] || kind=window-container-start
			daemon_round "$kind@${o%%=*}" "$r" "$at" "${o#*=}"
		done
	done
done
vm_pass "$rounds rounds"

kill "$logger_pid" 2>/dev/null
kill -KILL "$cpid" 2>/dev/null
wait "$unshare_pid" 2>/dev/null
in_tree_loaded
vm_pass "in-tree stack back at the end"
